package auth

import (
	"context"
	"runtime"
	"time"

	"github.com/styrmin/styrmin"
)

// MaxHashWait is how long a password check waits for a free hashing slot
// before the request is refused as busy.
const MaxHashWait = 10 * time.Second

// hashGate runs at most as many argon2id hashes at once as it has slots (one
// per CPU): each hash takes 19 MiB and a CPU, so unbounded parallel sign-ins
// would exhaust memory instead of queueing.
type hashGate struct {
	slots   chan struct{}
	maxWait time.Duration
	// verify and hash are VerifyPassword and Argon2Params.Hash; tests count calls.
	verify func(hash, password string) (bool, error)
	hash   func(password string) (string, error)
}

// newHashGate returns a gate with one slot per CPU that hashes with params.
func newHashGate(params Argon2Params) *hashGate {
	return &hashGate{
		slots:   make(chan struct{}, runtime.NumCPU()),
		maxWait: MaxHashWait,
		verify:  VerifyPassword,
		hash:    params.Hash,
	}
}

// acquire waits for a free slot until ctx ends or maxWait passes; the caller
// must call the returned release.
func (g *hashGate) acquire(ctx context.Context) (release func(), err error) {
	timer := time.NewTimer(g.maxWait)
	defer timer.Stop()
	select {
	case g.slots <- struct{}{}:
		return func() { <-g.slots }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-timer.C:
		return nil, styrmin.Errorf(styrmin.EUNAVAILABLE, "The server is busy checking other passwords; try again in a moment.")
	}
}

// Verify checks password against hash in a slot.
func (g *hashGate) Verify(ctx context.Context, hash, password string) (bool, error) {
	release, err := g.acquire(ctx)
	if err != nil {
		return false, err
	}
	defer release()
	return g.verify(hash, password)
}

// Hash hashes password in a slot.
func (g *hashGate) Hash(ctx context.Context, password string) (string, error) {
	release, err := g.acquire(ctx)
	if err != nil {
		return "", err
	}
	defer release()
	return g.hash(password)
}
