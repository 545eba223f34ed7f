package main

import (
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/proctor-eval/proctor/domains/catalog"
	"github.com/proctor-eval/proctor/domains/tau2/install"
)

// tau2Usage is the help of --tau2-data.
const tau2Usage = "directory of tau2-bench's domain data, laid out like tau2's data/tau2/domains (default $" +
	catalog.EnvTau2Data + ", else the copy 'proctor domains install tau2' made)"

func addTau2Flag(cmd *cobra.Command, dir *string) {
	cmd.Flags().StringVar(dir, "tau2-data", "", tau2Usage)
}

// tau2DataDir says where tau2-bench's data is: --tau2-data, else
// $PROCTOR_TAU2_DATA, else proctor's own installation if there is one, else
// nowhere (""). Only a --tau2-data that is not a directory is an error:
// without data the tau2 domains are simply not available.
func tau2DataDir(flag string) (string, error) {
	if flag != "" {
		if fi, err := os.Stat(flag); err != nil || !fi.IsDir() {
			return "", usageErr("--tau2-data %s: not a directory", flag)
		}
		return flag, nil
	}
	if env := os.Getenv(catalog.EnvTau2Data); env != "" {
		return env, nil
	}
	// An installation is a directory with its manifest: an empty one (left
	// by an older proctor's failed install) is nothing to announce.
	if dir, err := install.DefaultDir(); err == nil {
		if fi, err := os.Stat(filepath.Join(dir, install.ManifestFile)); err == nil && fi.Mode().IsRegular() {
			return dir, nil
		}
	}
	return "", nil
}

// newCatalog returns the domains proctor can evaluate on. tau2 domains are
// found, not loaded: each loads when first used.
func newCatalog(tau2Flag string) (*catalog.Catalog, error) {
	dir, err := tau2DataDir(tau2Flag)
	if err != nil {
		return nil, err
	}
	c, err := catalog.New(dir)
	if err != nil {
		return nil, failErr(err)
	}
	return c, nil
}
