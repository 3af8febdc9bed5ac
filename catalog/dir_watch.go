package catalog

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"
)

// WatchDir imports dir again (ImportDir with changes) whenever a file under
// it changes, until ctx ends: every period it compares the names, sizes and
// modification times of its files with the last import's, which costs a
// walk of the folder, not a load of every bundle. A change is imported once
// the folder has stayed as it is for a whole period, so that an editor or a
// copy still writing its files is not imported half-way. imported is told
// each import's results, or its error (the watch goes on).
func (c *Catalog) WatchDir(ctx context.Context, dir string, changes FolderChanges, period time.Duration, imported func([]Imported, error)) {
	lastImported := folderStamp(dir)
	lastSeen := lastImported
	ticker := time.NewTicker(period)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		stamp := folderStamp(dir)
		settled := stamp == lastSeen
		lastSeen = stamp
		if !settled || stamp == lastImported {
			continue
		}
		lastImported = stamp
		imported(c.ImportDir(ctx, dir, changes))
	}
}

// folderStamp sums up the files under dir as their names, sizes and
// modification times; an unreadable entry counts as its error.
func folderStamp(dir string) [sha256.Size]byte {
	h := sha256.New()
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			fmt.Fprintf(h, "%s\x00%v\n", path, err)
			return nil
		}
		info, err := d.Info()
		if err != nil {
			fmt.Fprintf(h, "%s\x00%v\n", path, err)
			return nil
		}
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00%v\n", path, info.Size(), info.ModTime().UnixNano(), info.Mode())
		return nil
	})
	var sum [sha256.Size]byte
	copy(sum[:], h.Sum(nil))
	return sum
}
