package main

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/spf13/cobra"
	"oras.land/oras-go/v2/registry/remote/credentials"

	styrmin "github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/authoring"
	"github.com/styrmin/styrmin/oci"
)

// passwordEnv holds a cosign key's password, as for cosign itself.
const passwordEnv = "COSIGN_PASSWORD"

// registryClient is an OCI client that logs in as `docker login` (or
// `helm registry login`) stored it, over plain http when plainHTTP.
func registryClient(plainHTTP bool) (oci.Client, error) {
	store, err := credentials.NewStoreFromDocker(credentials.StoreOptions{})
	if err != nil {
		return oci.Client{}, fmt.Errorf("registry logins: %w", err)
	}
	return oci.Client{PlainHTTP: plainHTTP, Credentials: credentials.Credential(store)}, nil
}

// newDriverPushCmd is `styrmin driver push`.
func newDriverPushCmd() *cobra.Command {
	var plainHTTP bool
	cmd := &cobra.Command{
		Use:   "push PATH|ARCHIVE oci://HOST/REPOSITORY[:TAG]",
		Short: "Publish a driver folder or bundle archive to an OCI registry",
		Long: "Pack the driver folder (or the bundle archive) as `styrmin driver package` does and push it as an\n" +
			"OCI artifact, tagged with the driver's version (a given tag must be that version). Logs in as\n" +
			"`docker login` stored it. Prints the artifact's digest, which `styrmin driver sign` signs.",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := oci.ParseRef(args[1])
			if err != nil {
				return err
			}
			c, err := registryClient(plainHTTP)
			if err != nil {
				return err
			}
			pushed, err := authoring.Push(cmd.Context(), c, args[0], ref)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "pushed %s\ndigest: %s\n", pushed.Ref, pushed.Digest)
			return nil
		},
	}
	cmd.Flags().BoolVar(&plainHTTP, "plain-http", false, "speak http, not https, to the registry (a registry on loopback)")
	return cmd
}

// newDriverSignCmd is `styrmin driver sign`.
func newDriverSignCmd() *cobra.Command {
	var (
		plainHTTP bool
		keyFile   string
	)
	cmd := &cobra.Command{
		Use:   "sign oci://HOST/REPOSITORY:TAG --key cosign.key",
		Short: "Sign a pushed driver with a cosign key, as cosign does",
		Long: "Sign the artifact the reference names with a cosign private key (its password in " + passwordEnv + ",\n" +
			"empty for a key without one): cosign's simple-signing payload naming the artifact's digest, stored\n" +
			"under the tag sha256-<digest>.sig beside it, as `cosign sign --key` stores it (no transparency log).\n" +
			"A catalogue source that trusts the public key imports the version as signed by that key.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := oci.ParseRef(args[0])
			if err != nil {
				return err
			}
			signer, err := loadSigner(keyFile)
			if err != nil {
				return err
			}
			c, err := registryClient(plainHTTP)
			if err != nil {
				return err
			}
			dgst, err := c.Sign(cmd.Context(), ref, signer)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "signed %s\ndigest: %s\n", ref, dgst)
			return nil
		},
	}
	cmd.Flags().BoolVar(&plainHTTP, "plain-http", false, "speak http, not https, to the registry (a registry on loopback)")
	cmd.Flags().StringVar(&keyFile, "key", "cosign.key", "the cosign private key")
	return cmd
}

// loadSigner reads the cosign private key keyFile with the password in passwordEnv.
func loadSigner(keyFile string) (signature.Signer, error) {
	password, ok := os.LookupEnv(passwordEnv)
	if !ok {
		return nil, styrmin.Errorf(styrmin.EINVALID, "Set %s to the key's password (empty for a key without one).", passwordEnv)
	}
	pem, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, styrmin.Errorf(styrmin.EINVALID, "Cannot read the key %s (%v); give the cosign.key of `styrmin driver keygen` or `cosign generate-key-pair`.", keyFile, err)
	}
	return oci.LoadSigner(pem, []byte(password))
}

// newDriverSignBlobCmd is `styrmin driver sign-blob`.
func newDriverSignBlobCmd() *cobra.Command {
	var keyFile, output string
	cmd := &cobra.Command{
		Use:   "sign-blob ARCHIVE --key cosign.key [--output-signature FILE]",
		Short: "Sign a bundle archive for an index source, as cosign sign-blob does",
		Long: "Sign the bundle archive (as `styrmin driver package` writes it) with a cosign private key (its\n" +
			"password in " + passwordEnv + ", empty for a key without one) and write the signature, base64, to\n" +
			"ARCHIVE.sig (or --output-signature), as `cosign sign-blob --key cosign.key --output-signature`\n" +
			"writes it. Publish it beside the archive: an index source that trusts the public key reads it at\n" +
			"the archive's URL + .sig and imports the version as signed by that key.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			signer, err := loadSigner(keyFile)
			if err != nil {
				return err
			}
			archive, err := os.ReadFile(args[0])
			if err != nil {
				return styrmin.Errorf(styrmin.EINVALID, "Cannot read the archive %s (%v); give the .tar.gz `styrmin driver package` writes.", args[0], err)
			}
			sig, err := oci.SignBlob(signer, archive)
			if err != nil {
				return err
			}
			output = cmp.Or(output, args[0]+".sig")
			if err := os.WriteFile(output, sig, 0o644); err != nil {
				return fmt.Errorf("sign-blob: %w", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "signed %s\nsignature: %s\n", args[0], output)
			return nil
		},
	}
	cmd.Flags().StringVar(&keyFile, "key", "cosign.key", "the cosign private key")
	cmd.Flags().StringVar(&output, "output-signature", "", "the file to write the signature in (default ARCHIVE.sig)")
	return cmd
}

// newDriverKeygenCmd is `styrmin driver keygen`.
func newDriverKeygenCmd() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "keygen",
		Short: "Make a cosign key pair to sign drivers with",
		Long: "Write cosign.key (the private key, encrypted under the password in " + passwordEnv + ") and\n" +
			"cosign.pub (the public key an admin gives a catalogue source) in --dir, as `cosign\n" +
			"generate-key-pair` does. Refuses to overwrite either.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			password, ok := os.LookupEnv(passwordEnv)
			if !ok {
				return styrmin.Errorf(styrmin.EINVALID, "Set %s to the password that will protect the private key (empty for none).", passwordEnv)
			}
			kp, err := oci.GenerateKeyPair([]byte(password))
			if err != nil {
				return err
			}
			for _, f := range []struct {
				name string
				data []byte
				mode fs.FileMode
			}{{"cosign.key", kp.Private, 0o600}, {"cosign.pub", kp.Public, 0o644}} {
				if err := writeNew(filepath.Join(dir, f.name), f.data, f.mode); err != nil {
					return err
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s and %s\n", filepath.Join(dir, "cosign.key"), filepath.Join(dir, "cosign.pub"))
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", ".", "the folder to write the key pair in")
	return cmd
}

// writeNew writes a file that must not exist yet.
func writeNew(path string, data []byte, mode fs.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if errors.Is(err, fs.ErrExist) {
		return styrmin.Errorf(styrmin.EINVALID, "%s exists already; keygen does not overwrite a key.", path)
	}
	if err != nil {
		return fmt.Errorf("keygen: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("keygen: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("keygen: %w", err)
	}
	return nil
}
