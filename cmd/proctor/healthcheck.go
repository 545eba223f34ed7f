package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/spf13/cobra"
)

func newHealthcheckCmd() *cobra.Command {
	var url string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "healthcheck",
		Short: "Exit 0 when a URL answers 2xx (for container health checks)",
		Long: `GET a URL and exit 0 when it answers with a 2xx status, 1 otherwise. Container images
without a shell or curl use it as their HEALTHCHECK.`,
		Example: `  proctor healthcheck --url http://127.0.0.1:9009/healthz`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			if err != nil {
				return usageErr("--url: %v", err)
			}
			client := &http.Client{Transport: &http.Transport{Proxy: nil}}
			resp, err := client.Do(req)
			if err != nil {
				return failErr(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode < 200 || resp.StatusCode > 299 {
				return failErr(fmt.Errorf("GET %s: %s", url, resp.Status))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&url, "url", "http://127.0.0.1:9009/healthz", "URL to GET")
	cmd.Flags().DurationVar(&timeout, "timeout", 5*time.Second, "how long to wait")
	return cmd
}
