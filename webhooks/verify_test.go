package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// signed is the headers of delivery sent at timestamp with body, signed with testSecret.
func signed(delivery string, timestamp int64, body []byte) http.Header {
	h := http.Header{}
	h.Set(DeliveryHeader, delivery)
	h.Set(TimestampHeader, strconv.FormatInt(timestamp, 10))
	h.Set(SignatureHeader, Sign([]byte(testSecret), delivery, timestamp, body))
	return h
}

func TestTheSignatureChangesWithTheDeliveryIDTimestampBodyAndSecret(t *testing.T) {
	t.Parallel()
	secret, body, at := []byte(testSecret), []byte(`{"event":"failed"}`), int64(1_800_000_000)
	base := Sign(secret, "41", at, body)
	require.Equal(t, base, Sign(secret, "41", at, body), "the same delivery sent at the same second")
	require.Regexp(t, `^sha256=[0-9a-f]{64}$`, base)
	for name, other := range map[string]string{
		"another delivery id": Sign(secret, "42", at, body),
		"a second later":      Sign(secret, "41", at+1, body),
		"another body":        Sign(secret, "41", at, []byte(`{"event":"succeeded"}`)),
		"another secret":      Sign([]byte("another secret of some length"), "41", at, body),
	} {
		require.NotEqual(t, base, other, name)
	}
}

func TestVerifyRefusesAReplayOrADeliverySignedForAnother(t *testing.T) {
	t.Parallel()
	body := []byte(`{"event":"failed","task_id":7}`)
	now := time.Now()
	sent := now.Add(-time.Minute).Unix()
	for name, tc := range map[string]struct {
		header http.Header
		body   []byte
		now    time.Time
		want   error
	}{
		"a delivery sent a minute ago":            {signed("41", sent, body), body, now, nil},
		"replayed within the tolerance":           {signed("41", sent, body), body, now.Add(MaxAge - 2*time.Minute), nil}, // the receiver drops the id it handled
		"replayed past the tolerance":             {signed("41", sent, body), body, now.Add(MaxAge), ErrTimestamp},
		"dated ahead of the receiver's clock":     {signed("41", now.Add(MaxAge+time.Minute).Unix(), body), body, now, ErrTimestamp},
		"its body and signature under another id": {with(signed("41", sent, body), DeliveryHeader, "42"), body, now, ErrSignature},
		"its timestamp made recent":               {with(signed("41", sent-3600, body), TimestampHeader, strconv.FormatInt(sent, 10)), body, now, ErrSignature},
		"another body":                            {signed("41", sent, body), []byte(`{"event":"succeeded","task_id":7}`), now, ErrSignature},
		"signed over the body alone (as before)":  {with(signed("41", sent, body), SignatureHeader, signBodyOnly(body)), body, now, ErrSignature},
		"no signature":                            {with(signed("41", sent, body), SignatureHeader, ""), body, now, ErrSignature},
		"no timestamp":                            {with(signed("41", sent, body), TimestampHeader, ""), body, now, ErrSignature},
		"a delivery id that is no number":         {signed("4.1", sent, body), body, now, ErrSignature},
	} {
		t.Run(name, func(t *testing.T) {
			err := verifyAt([]byte(testSecret), tc.header, tc.body, MaxAge, tc.now)
			if tc.want == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tc.want)
		})
	}
	require.NoError(t, Verify([]byte(testSecret), signed("41", time.Now().Unix(), body), body, MaxAge), "Verify is verifyAt now")
}

// with is h with key set to value.
func with(h http.Header, key, value string) http.Header {
	h = h.Clone()
	h.Set(key, value)
	return h
}

// signBodyOnly is the signature of body alone that deliveries carried
// before they were signed with their id and timestamp.
func signBodyOnly(body []byte) string {
	mac := hmac.New(sha256.New, []byte(testSecret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}
