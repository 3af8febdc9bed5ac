package admission

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Serve serves Handler(rules) at Path over TLS on listener, with the
// certificate and key in certFile and keyFile, until ctx ends.
func Serve(ctx context.Context, listener net.Listener, certFile, keyFile string, rules *Rules) error {
	mux := http.NewServeMux()
	mux.Handle("POST "+Path, Handler(rules))
	server := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	stop := context.AfterFunc(ctx, func() {
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		server.Shutdown(shutdown) //nolint:errcheck // the server is going away either way
	})
	defer stop()
	err := server.ServeTLS(listener, certFile, keyFile)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return fmt.Errorf("admission: serve the image substitution webhook: %w", err)
}
