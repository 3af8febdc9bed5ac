// Package chartsecret makes the keys of a Helm install of Styrmin that the
// chart itself must not generate: its hook Job (`styrmin chart-secret`)
// creates them in a Secret when they are missing and never changes one that
// exists, so that `helm template` (Argo CD, Flux) renders no random value
// and every render of the same values is the same.
package chartsecret

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"maps"
	"net/url"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
)

// The keys of the Secret, as the chart's pods read them.
const (
	// SecretKey is the key that seals secret parameters (32 random bytes, base64).
	SecretKey = "secret-key"
	// AdminPassword is the first admin's password.
	AdminPassword = "admin-password"
	// PostgreSQLPassword is the evaluation PostgreSQL's password.
	PostgreSQLPassword = "postgresql-password"
	// DatabaseURL is the evaluation PostgreSQL's URL, built on its password.
	DatabaseURL = "database-url"
)

// Spec says which Secret to make and what it holds.
type Spec struct {
	// Namespace and Name name the Secret.
	Namespace, Name string
	// PostgreSQLHost, when set, is the evaluation PostgreSQL's Service: the
	// Secret then also holds its password and the database URL on it.
	PostgreSQLHost string
	// Labels are set on a Secret this creates.
	Labels map[string]string
}

// validate refuses a Spec the API server would refuse, with the flag to fix.
func (s Spec) validate() error {
	for _, f := range []struct{ flag, value string }{{"--namespace", s.Namespace}, {"--name", s.Name}} {
		if errs := validation.IsDNS1123Subdomain(f.value); len(errs) > 0 {
			return fmt.Errorf("chartsecret: %s %q is not a Kubernetes object name: %s", f.flag, f.value, errs[0])
		}
	}
	if s.PostgreSQLHost != "" {
		if errs := validation.IsDNS1123Subdomain(s.PostgreSQLHost); len(errs) > 0 {
			return fmt.Errorf("chartsecret: --postgresql-host %q is not a host name: %s", s.PostgreSQLHost, errs[0])
		}
	}
	return nil
}

// Ensure makes the Secret hold every key of spec: it creates the Secret when
// it is missing and adds only the keys it lacks otherwise (an install that
// turns the evaluation PostgreSQL on later), never changing a value that is
// there. It returns the keys it added, sorted.
func Ensure(ctx context.Context, client kubernetes.Interface, spec Spec) ([]string, error) {
	if err := spec.validate(); err != nil {
		return nil, err
	}
	secrets := client.CoreV1().Secrets(spec.Namespace)
	existing, err := secrets.Get(ctx, spec.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		data, added, err := fill(nil, spec)
		if err != nil {
			return nil, err
		}
		s := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: spec.Name, Namespace: spec.Namespace, Labels: spec.Labels},
			Type:       corev1.SecretTypeOpaque,
			Data:       data,
		}
		if _, err := secrets.Create(ctx, s, metav1.CreateOptions{}); err != nil {
			return nil, fmt.Errorf("chartsecret: create %s/%s: %w", spec.Namespace, spec.Name, err)
		}
		return added, nil
	case err != nil:
		return nil, fmt.Errorf("chartsecret: read %s/%s: %w", spec.Namespace, spec.Name, err)
	}
	data, added, err := fill(existing.Data, spec)
	if err != nil || len(added) == 0 {
		return nil, err
	}
	existing.Data = data
	if _, err := secrets.Update(ctx, existing, metav1.UpdateOptions{}); err != nil {
		return nil, fmt.Errorf("chartsecret: add %v to %s/%s: %w", added, spec.Namespace, spec.Name, err)
	}
	return added, nil
}

// fill returns a copy of data with the keys spec needs that it lacks, made
// now, and their names.
func fill(data map[string][]byte, spec Spec) (map[string][]byte, []string, error) {
	out := maps.Clone(data)
	if out == nil {
		out = map[string][]byte{}
	}
	var added []string
	add := func(key string, gen func() ([]byte, error)) error {
		if _, ok := out[key]; ok {
			return nil
		}
		v, err := gen()
		if err != nil {
			return fmt.Errorf("chartsecret: make %s: %w", key, err)
		}
		out[key] = v
		added = append(added, key)
		return nil
	}
	err := add(SecretKey, func() ([]byte, error) {
		b, err := randomBytes(32)
		return []byte(base64.StdEncoding.EncodeToString(b)), err
	})
	if err == nil {
		err = add(AdminPassword, func() ([]byte, error) { return password(24) })
	}
	if err == nil && spec.PostgreSQLHost != "" {
		err = add(PostgreSQLPassword, func() ([]byte, error) { return password(24) })
		if err == nil {
			err = add(DatabaseURL, func() ([]byte, error) {
				u := url.URL{Scheme: "postgres", User: url.UserPassword("styrmin", string(out[PostgreSQLPassword])),
					Host: spec.PostgreSQLHost + ":5432", Path: "/styrmin", RawQuery: "sslmode=disable"}
				return []byte(u.String()), nil
			})
		}
	}
	if err != nil {
		return nil, nil, err
	}
	slices.Sort(added)
	return out, added, nil
}

func randomBytes(n int) ([]byte, error) {
	b := make([]byte, n)
	_, err := rand.Read(b)
	return b, err
}

// alphanumeric are the characters of generated passwords: safe in a URL,
// a shell and a form.
const alphanumeric = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// password returns n random alphanumeric characters, uniformly drawn.
func password(n int) ([]byte, error) {
	out := make([]byte, 0, n)
	for len(out) < n {
		b, err := randomBytes(n)
		if err != nil {
			return nil, err
		}
		for _, c := range b {
			// 248 = 4 × 62: rejecting the rest keeps every character equally likely.
			if c < 248 && len(out) < n {
				out = append(out, alphanumeric[int(c)%len(alphanumeric)])
			}
		}
	}
	return out, nil
}
