package tracing

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestConfigFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    Config
		wantErr string
	}{
		{name: "nothing set: off", env: nil, want: Config{}},
		{name: "service name alone: off", env: map[string]string{EnvServiceName: "svc"}, want: Config{ServiceName: "svc"}},
		{name: "protocol alone: off", env: map[string]string{EnvProtocol: "grpc"}, want: Config{}},
		{
			name: "general endpoint: http/protobuf to /v1/traces",
			env:  map[string]string{EnvEndpoint: "http://collector:4318"},
			want: Config{Enabled: true, Protocol: ProtocolHTTPProtobuf, EndpointURL: "http://collector:4318/v1/traces"},
		},
		{
			name: "general endpoint with a path and a slash",
			env:  map[string]string{EnvEndpoint: "https://collector.example/otlp/"},
			want: Config{Enabled: true, Protocol: ProtocolHTTPProtobuf, EndpointURL: "https://collector.example/otlp/v1/traces"},
		},
		{
			name: "traces endpoint used as it is, and wins",
			env:  map[string]string{EnvEndpoint: "http://a:4318", EnvTracesEndpoint: "http://b:9999/custom"},
			want: Config{Enabled: true, Protocol: ProtocolHTTPProtobuf, EndpointURL: "http://b:9999/custom"},
		},
		{
			name: "grpc endpoint gets no path",
			env:  map[string]string{EnvEndpoint: "http://collector:4317", EnvProtocol: "grpc"},
			want: Config{Enabled: true, Protocol: ProtocolGRPC, EndpointURL: "http://collector:4317"},
		},
		{
			name: "traces protocol wins over the general one",
			env:  map[string]string{EnvEndpoint: "http://c:4317", EnvProtocol: "http/protobuf", EnvTracesProtocol: "GRPC"},
			want: Config{Enabled: true, Protocol: ProtocolGRPC, EndpointURL: "http://c:4317"},
		},
		{
			name: "exporter otlp without endpoint: the default collector",
			env:  map[string]string{EnvTracesExporter: "otlp"},
			want: Config{Enabled: true, Protocol: ProtocolHTTPProtobuf, EndpointURL: "http://localhost:4318/v1/traces"},
		},
		{
			name: "exporter otlp over grpc without endpoint",
			env:  map[string]string{EnvTracesExporter: "otlp", EnvProtocol: "grpc"},
			want: Config{Enabled: true, Protocol: ProtocolGRPC, EndpointURL: "http://localhost:4317"},
		},
		{
			name: "exporter none wins over an endpoint",
			env:  map[string]string{EnvTracesExporter: "none", EnvEndpoint: "http://c:4318"},
			want: Config{},
		},
		{
			name: "SDK disabled wins over everything",
			env:  map[string]string{EnvSDKDisabled: "TRUE", EnvTracesExporter: "otlp", EnvEndpoint: "http://c:4318"},
			want: Config{},
		},
		{
			name: "SDK disabled false is no disabling",
			env:  map[string]string{EnvSDKDisabled: "false", EnvEndpoint: "http://c:4318"},
			want: Config{Enabled: true, Protocol: ProtocolHTTPProtobuf, EndpointURL: "http://c:4318/v1/traces"},
		},
		{
			name: "unknown exporter is a warning, otlp among them still exports",
			env:  map[string]string{EnvTracesExporter: "zipkin, otlp", EnvEndpoint: "http://c:4318"},
			want: Config{Enabled: true, Protocol: ProtocolHTTPProtobuf, EndpointURL: "http://c:4318/v1/traces",
				Warnings: []string{`OTEL_TRACES_EXPORTER: proctor exports traces with otlp only; "zipkin" ignored`}},
		},
		{
			name: "only an unknown exporter: off, with a warning",
			env:  map[string]string{EnvTracesExporter: "console"},
			want: Config{Warnings: []string{`OTEL_TRACES_EXPORTER: proctor exports traces with otlp only; "console" ignored`}},
		},
		{
			name: "http/json is a warning and falls back to http/protobuf",
			env:  map[string]string{EnvEndpoint: "http://c:4318", EnvProtocol: "http/json"},
			want: Config{Enabled: true, Protocol: ProtocolHTTPProtobuf, EndpointURL: "http://c:4318/v1/traces",
				Warnings: []string{`OTEL_EXPORTER_OTLP_PROTOCOL: protocol "http/json" is not supported (use http/protobuf or grpc); using http/protobuf`}},
		},
		{
			name: "batching from OTEL_BSP_*",
			env: map[string]string{EnvEndpoint: "http://c:4318", EnvBatchDelay: "250", EnvExportTimeout: "3000",
				EnvMaxQueued: "4096", EnvBatchSize: "1024"},
			want: Config{Enabled: true, Protocol: ProtocolHTTPProtobuf, EndpointURL: "http://c:4318/v1/traces",
				Batch: Batch{Size: 1024, MaxQueued: 4096, Delay: 250 * time.Millisecond, ExportTimeout: 3 * time.Second}},
		},
		{
			name: "unusable OTEL_BSP_* values are warnings and keep the defaults",
			env: map[string]string{EnvEndpoint: "http://c:4318", EnvBatchDelay: "5s", EnvMaxQueued: "0",
				EnvBatchSize: "99999999"},
			want: Config{Enabled: true, Protocol: ProtocolHTTPProtobuf, EndpointURL: "http://c:4318/v1/traces",
				Warnings: []string{
					`OTEL_BSP_SCHEDULE_DELAY="5s": want a whole number from 1 to 86400000; using the default`,
					`OTEL_BSP_MAX_QUEUE_SIZE="0": want a whole number from 1 to 1048576; using the default`,
					`OTEL_BSP_MAX_EXPORT_BATCH_SIZE="99999999": want a whole number from 1 to 1048576; using the default`,
				}},
		},
		{name: "endpoint without scheme", env: map[string]string{EnvEndpoint: "collector:4318"}, wantErr: "OTEL_EXPORTER_OTLP_ENDPOINT=\"collector:4318\": want an http:// or https:// URL"},
		{name: "traces endpoint with another scheme", env: map[string]string{EnvTracesEndpoint: "ftp://c/x"}, wantErr: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"},
		{name: "endpoint that is no URL", env: map[string]string{EnvEndpoint: "http://[::1"}, wantErr: "want an http:// or https:// URL"},
		{name: "oversized value", env: map[string]string{EnvServiceName: strings.Repeat("x", maxEnvValueLen+1)}, wantErr: "OTEL_SERVICE_NAME is longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ConfigFromEnv(func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzConfigFromEnv(f *testing.F) {
	f.Add("http://c:4318", "", "grpc", "otlp,none", "512", "2048")
	f.Add("", "https://x/y", "http/json", "", "0", "-1")
	f.Add("http://c:4318", "", "", "", "99999999999999999999", "1")
	f.Fuzz(func(t *testing.T, endpoint, traces, protocol, exporter, batch, queue string) {
		env := map[string]string{EnvEndpoint: endpoint, EnvTracesEndpoint: traces, EnvProtocol: protocol, EnvTracesExporter: exporter,
			EnvBatchSize: batch, EnvMaxQueued: queue, EnvBatchDelay: batch, EnvExportTimeout: queue}
		cfg, err := ConfigFromEnv(func(k string) string { return env[k] })
		if err != nil {
			return
		}
		if cfg.Enabled && cfg.EndpointURL == "" {
			t.Fatalf("enabled without an endpoint: %+v", cfg)
		}
		b := cfg.Batch.withDefaults()
		if b.Size < 1 || b.Size > b.MaxQueued || b.MaxQueued > maxQueuedLimit || b.Delay <= 0 || b.ExportTimeout <= 0 {
			t.Fatalf("batching %+v from %q, %q", b, batch, queue)
		}
	})
}

func TestBatchDefaults(t *testing.T) {
	tests := []struct {
		name string
		in   Batch
		want Batch
	}{
		{name: "all defaults", in: Batch{}, want: Batch{Size: BatchSize, MaxQueued: MaxQueued, Delay: BatchDelay, ExportTimeout: ExportTimeout}},
		{name: "batch larger than the queue is cut to it", in: Batch{Size: 5000}, want: Batch{Size: MaxQueued, MaxQueued: MaxQueued, Delay: BatchDelay, ExportTimeout: ExportTimeout}},
		{name: "small queue cuts the default batch", in: Batch{MaxQueued: 100}, want: Batch{Size: 100, MaxQueued: 100, Delay: BatchDelay, ExportTimeout: ExportTimeout}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.in.withDefaults()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
