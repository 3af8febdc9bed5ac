package webhooks

// This file is what a receiver needs to check a delivery. It uses the
// standard library only: a receiver written in Go may copy it as it is.

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// The headers that authenticate a delivery.
const (
	// DeliveryHeader is the delivery's id: the same on every retry of it, a
	// new one for a redelivery.
	DeliveryHeader = "X-Styrmin-Delivery"
	// TimestampHeader is when the attempt was sent, in Unix seconds.
	TimestampHeader = "X-Styrmin-Timestamp"
	// SignatureHeader is the delivery's signature (Sign).
	SignatureHeader = "X-Styrmin-Signature-256"
)

// MaxAge is the tolerance receivers should give Verify: a delivery sent
// longer ago (or, by the receiver's clock, further ahead) is refused.
const MaxAge = 5 * time.Minute

// Sign is the value of SignatureHeader of delivery sent at timestamp (Unix
// seconds) with body: "sha256=" and the hex HMAC-SHA256, under secret, of
// "<delivery>.<timestamp>.<body>".
func Sign(secret []byte, delivery string, timestamp int64, body []byte) string {
	return sign(secret, delivery, strconv.FormatInt(timestamp, 10), body)
}

// sign is Sign with the timestamp as the header spells it.
func sign(secret []byte, delivery, timestamp string, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(delivery + "." + timestamp + "."))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// Why Verify refuses a delivery.
var (
	// ErrSignature: a header is missing, or the signature is not that of
	// the delivery's id, timestamp and body under the secret.
	ErrSignature = errors.New("webhook signature does not match")
	// ErrTimestamp: the delivery was sent more than the tolerance ago (a
	// replay) or ahead of the receiver's clock.
	ErrTimestamp = errors.New("webhook timestamp is outside the tolerance")
)

// Verify checks a delivery, its headers and raw body, before its receiver
// acts on it: the signature must be the delivery id's, timestamp's and
// body's under secret, and the timestamp within maxAge (MaxAge) of now. So
// a captured delivery replayed later than maxAge, or its body and signature
// sent under another delivery's id, is refused (errors.Is ErrSignature or
// ErrTimestamp). Within maxAge, drop a delivery id already handled.
func Verify(secret []byte, header http.Header, body []byte, maxAge time.Duration) error {
	return verifyAt(secret, header, body, maxAge, time.Now())
}

// verifyAt is Verify at the time now.
func verifyAt(secret []byte, header http.Header, body []byte, maxAge time.Duration, now time.Time) error {
	delivery, timestamp, signature := header.Get(DeliveryHeader), header.Get(TimestampHeader), header.Get(SignatureHeader)
	if _, err := strconv.ParseUint(delivery, 10, 64); err != nil {
		return fmt.Errorf("%w: %s is not a delivery id", ErrSignature, DeliveryHeader)
	}
	sent, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: %s is not Unix seconds", ErrSignature, TimestampHeader)
	}
	if !hmac.Equal([]byte(sign(secret, delivery, timestamp, body)), []byte(signature)) {
		return ErrSignature
	}
	switch age := now.Sub(time.Unix(sent, 0)).Truncate(time.Second); {
	case age > maxAge:
		return fmt.Errorf("%w: sent %s ago, more than %s", ErrTimestamp, age, maxAge)
	case age < -maxAge:
		return fmt.Errorf("%w: dated %s ahead, more than %s", ErrTimestamp, -age, maxAge)
	}
	return nil
}
