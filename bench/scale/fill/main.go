// Command fill writes a long history into a migrated Styrmin database
// (package scale): by default 1,000 deployments, 100,000 ended tasks and
// 1,000,000 steps, with log lines, revisions and audit entries.
//
//	go run ./bench/scale/fill --database-url postgres://... [--tasks 100000]
//
// The driver version the deployments use must be in the catalogue (styrmin
// serve imports the bundled drivers, hello-web 1.0.0 among them).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/styrmin/styrmin/bench/scale"
	"github.com/styrmin/styrmin/db"
)

func main() {
	if err := run(context.Background(), os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "fill:", err)
		os.Exit(1)
	}
}

// run parses args, fills the database and says how long it took.
func run(ctx context.Context, args []string) error {
	flags := flag.NewFlagSet("fill", flag.ContinueOnError)
	url := flags.String("database-url", os.Getenv("STYRMIN_DATABASE_URL"), "the database to fill (default $STYRMIN_DATABASE_URL)")
	size := scale.Long
	flags.IntVar(&size.Deployments, "deployments", size.Deployments, "deployments to write")
	flags.IntVar(&size.Tasks, "tasks", size.Tasks, "ended tasks to write, spread over the deployments")
	flags.IntVar(&size.StepsPerTask, "steps-per-task", size.StepsPerTask, "steps of each task")
	driver := scale.Driver{}
	flags.StringVar(&driver.Name, "driver", "hello-web", "the driver of every deployment, already in the catalogue")
	flags.StringVar(&driver.Version, "driver-version", "1.0.0", "its version")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *url == "" {
		return fmt.Errorf("--database-url or STYRMIN_DATABASE_URL is required")
	}
	pool, err := db.Open(ctx, *url)
	if err != nil {
		return err
	}
	defer pool.Close()
	start := time.Now()
	if err := scale.Fill(ctx, pool, size, driver); err != nil {
		return err
	}
	fmt.Printf("filled %d deployments, %d tasks, %d steps in %s\n",
		size.Deployments, size.Tasks, size.Steps(), time.Since(start).Round(time.Second))
	return nil
}
