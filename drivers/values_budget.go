package drivers

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"time"
)

// The budget of one values template render. A template that needs more is
// refused, so a bundle cannot exhaust the server's memory or CPU.
const (
	// maxValuesBytes bounds the rendered output and every string or list the
	// template's functions build on the way, together.
	maxValuesBytes = 1 << 20
	// maxValuesIterations bounds the iterations of all range loops together.
	maxValuesIterations = 100_000
	// maxValuesTime bounds the wall time of one render.
	maxValuesTime = 5 * time.Second
)

// listEntrySize is what one element of a list or mapping built by a function costs.
const listEntrySize = 8

// budget is what is left of one render's budget. Every function of the
// template, every range iteration and every write to the output spends from it.
type budget struct {
	ctx        context.Context
	limit      time.Duration
	deadline   time.Time
	bytes      int
	iterations int
}

// newBudget returns a full budget that ends limit (maxValuesTime but in
// tests of the other limits) from now or when ctx ends.
func newBudget(ctx context.Context, limit time.Duration) *budget {
	return &budget{ctx: ctx, limit: limit, deadline: time.Now().Add(limit), bytes: maxValuesBytes, iterations: maxValuesIterations}
}

// alive fails once the render's time is up or its context was cancelled.
func (b *budget) alive() error {
	if err := b.ctx.Err(); err != nil {
		return fmt.Errorf("rendering stopped: %w", err)
	}
	if time.Now().After(b.deadline) {
		return fmt.Errorf("rendering takes longer than %s; simplify the template", b.limit)
	}
	return nil
}

// fits fails when n more bytes would pass what is left of the budget.
func (b *budget) fits(n int) error {
	if err := b.alive(); err != nil {
		return err
	}
	if n < 0 || n > b.bytes {
		return fmt.Errorf("the output and the strings built on the way would be larger than %d bytes; build less text", maxValuesBytes)
	}
	return nil
}

// spend takes n bytes from the budget.
func (b *budget) spend(n int) error {
	if err := b.fits(n); err != nil {
		return err
	}
	b.bytes -= n
	return nil
}

// iterate takes one range iteration from the budget.
func (b *budget) iterate() error {
	if err := b.alive(); err != nil {
		return err
	}
	if b.iterations == 0 {
		return fmt.Errorf("range loops run more than %d iterations together; loop over less", maxValuesIterations)
	}
	b.iterations--
	return nil
}

// text builds a string of about estimate bytes, after checking that the
// estimate fits, and spends its real size. An estimate may be low by a small
// factor (escaping, case mapping), never by more: what is built stays within a
// few times the budget, and spending its real size then fails.
func (b *budget) text(estimate int, build func() string) (string, error) {
	if err := b.fits(estimate); err != nil {
		return "", err
	}
	s := build()
	return s, b.spend(len(s))
}

// mulSize multiplies two sizes, saturating at math.MaxInt instead of overflowing.
func mulSize(a, n int) int {
	if a <= 0 || n <= 0 {
		return 0
	}
	if a > math.MaxInt/n {
		return math.MaxInt
	}
	return a * n
}

// addSize adds two sizes, saturating at math.MaxInt instead of overflowing.
func addSize(a, n int) int {
	if a > math.MaxInt-n {
		return math.MaxInt
	}
	return a + n
}

// printedSize estimates the bytes of v printed with fmt, JSON or YAML, and
// stops counting once the estimate passes limit, so a huge value is not walked.
func printedSize(v any, limit int) int {
	return sizeOf(reflect.ValueOf(v), limit)
}

// scalarSize is the estimate for a number, a boolean or nil.
const scalarSize = 24

// sizeOf is printedSize on a reflect.Value.
func sizeOf(v reflect.Value, limit int) int {
	switch v.Kind() {
	case reflect.Invalid:
		return scalarSize
	case reflect.String:
		return v.Len() + 2
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return scalarSize
		}
		return sizeOf(v.Elem(), limit)
	case reflect.Slice, reflect.Array:
		n := 2
		for i := 0; i < v.Len() && n <= limit; i++ {
			n = addSize(n, 1+sizeOf(v.Index(i), limit-n))
		}
		return n
	case reflect.Map:
		n := 2
		for it := v.MapRange(); it.Next() && n <= limit; {
			n = addSize(n, 2+sizeOf(it.Key(), limit-n))
			n = addSize(n, sizeOf(it.Value(), limit-n))
		}
		return n
	case reflect.Struct:
		n := 2
		for i := 0; i < v.NumField() && n <= limit; i++ {
			n = addSize(n, 2+len(v.Type().Field(i).Name)+sizeOf(v.Field(i), limit-n))
		}
		return n
	}
	return scalarSize
}
