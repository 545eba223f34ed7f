package evalset

import (
	"encoding/json"
	"reflect"
)

// LoadMetrics reads the metrics file given with --metrics: a tRPC-Agent-Go
// metrics file (a JSON list of metrics), an ADK test_config.json
// ({"criteria": {...}}), or YAML of either shape (*.yaml, *.yml). Every
// problem is reported at once, as a *ValidationError.
func LoadMetrics(path string) ([]*Metric, error) {
	p := newProblems(path)
	metrics := loadMetricsFile(path, p)
	if err := p.err(); err != nil {
		return nil, err
	}
	return metrics, nil
}

// loadMetricsFile reads and validates a metrics file, reporting to p.
func loadMetricsFile(path string, p problems) []*Metric {
	data, err := readBounded(path)
	if err != nil {
		p.add("", "cannot read: %v", err)
		return nil
	}
	metrics := parseMetrics(data, isYAMLName(path), p)
	if metrics != nil {
		validateMetrics(metrics, "", p)
	}
	return metrics
}

// parseMetrics decodes a metrics file of any accepted shape.
func parseMetrics(data []byte, isYAML bool, p problems) []*Metric {
	if isYAML {
		converted, err := yamlToJSON(data)
		if err != nil {
			p.add("", "%v", err)
			return nil
		}
		data = converted
	}
	if err := checkJSONShape(data); err != nil {
		p.add("", "%v", err)
		return nil
	}
	var top any
	if err := json.Unmarshal(data, &top); err != nil {
		addJSONError(p, err, data)
		return nil
	}
	switch detectJSON(top) {
	case kindMetrics:
		return parseTRPCMetrics(data, top, p)
	case kindTestConfig:
		return parseADKConfig(data, p)
	}
	if list, ok := top.([]any); ok && len(list) == 0 {
		p.add("", "no metrics in the file")
		return nil
	}
	p.add("", "not a metrics file: expected a list of {metricName, threshold, criterion} (tRPC-Agent-Go) or {\"criteria\": {...}} (ADK test_config.json)")
	return nil
}

func parseTRPCMetrics(data []byte, top any, p problems) []*Metric {
	checkKeys(top, reflect.TypeFor[[]*Metric](), "json", "", p)
	var metrics []*Metric
	if err := json.Unmarshal(data, &metrics); err != nil {
		addJSONError(p, err, data)
		return nil
	}
	return metrics
}
