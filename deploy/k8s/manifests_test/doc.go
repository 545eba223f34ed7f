// Package manifests_test decodes deploy/k8s's Kubernetes manifests strictly
// with the Kubernetes API types, so that a misspelt or misplaced field fails
// CI instead of a cluster's apply. It is a module of its own so that the
// Kubernetes API modules stay out of proctor's go.mod.
package manifests_test
