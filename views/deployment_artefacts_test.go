package views

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestByteSizeWritesSizesInBinaryUnits(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{
		-1:          "unknown",
		0:           "0 B",
		1023:        "1023 B",
		1024:        "1 KiB",
		1536:        "1.5 KiB",
		5 << 20:     "5 MiB",
		3<<30 + 1:   "3 GiB",
		1 << 62:     "4 EiB",
		1<<40 + 1e9: "1 TiB",
	} {
		require.Equal(t, want, byteSize(n), "%d bytes", n)
	}
}
