package controlplane

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/styrmin/styrmin/localkube/admission"
	"github.com/styrmin/styrmin/localkube/pki"
	"github.com/styrmin/styrmin/localkube/substitute"
)

// startImageSubstitution serves the image substitution webhook (package
// admission) with rules on a loopback port of this process, with a serving
// certificate from the cluster's CA, and registers it with the API server.
// stop ends the serving and returns why it ended early, if it did.
func startImageSubstitution(ctx context.Context, rules []substitute.Rule, files pki.Files, client *adminClient) (stop func() error, err error) {
	checked, err := admission.NewRules(rules)
	if err != nil {
		return nil, err
	}
	cert, key, err := pki.GenerateLoopbackServing(files, "image-webhook")
	if err != nil {
		return nil, err
	}
	caBundle, err := os.ReadFile(files.CACert)
	if err != nil {
		return nil, fmt.Errorf("image substitution webhook: %w", err)
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("image substitution webhook: listen on loopback: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- admission.Serve(ctx, listener, cert, key, checked) }()
	stop = func() error {
		cancel()
		return <-served
	}
	url := fmt.Sprintf("https://%s%s", listener.Addr(), admission.Path)
	if err := client.registerMutatingWebhook(ctx, admission.Configuration(url, caBundle)); err != nil {
		return nil, errors.Join(err, stop())
	}
	return stop, nil
}

// registerMutatingWebhook creates (or replaces) config and waits until the
// API server calls the webhook: a pod created in a dry run comes back
// annotated.
func (c *adminClient) registerMutatingWebhook(ctx context.Context, config *admissionregistrationv1.MutatingWebhookConfiguration) error {
	configs := c.core.AdmissionregistrationV1().MutatingWebhookConfigurations()
	_, err := configs.Create(ctx, config, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		var old *admissionregistrationv1.MutatingWebhookConfiguration
		if old, err = configs.Get(ctx, config.Name, metav1.GetOptions{}); err == nil {
			config.ResourceVersion = old.ResourceVersion
			_, err = configs.Update(ctx, config, metav1.UpdateOptions{})
		}
	}
	if err != nil {
		return fmt.Errorf("register the image substitution webhook: %w", err)
	}
	return waitFor(ctx, "image substitution webhook", time.Minute, nil, c.webhookCalled)
}

// webhookCalled checks that a pod (created in a dry run, so that nothing
// stays) comes back with substitute.Annotation.
func (c *adminClient) webhookCalled(ctx context.Context) error {
	probe := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "image-webhook-probe"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "probe", Image: "image-webhook-probe:1"}}},
	}
	created, err := c.core.CoreV1().Pods(metav1.NamespaceDefault).Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil {
		return err
	}
	if created.Annotations[substitute.Annotation] == "" {
		return fmt.Errorf("the API server does not call it yet")
	}
	return nil
}
