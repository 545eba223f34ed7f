package tracing

import (
	"math"
	"strings"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"google.golang.org/protobuf/encoding/protowire"
)

// The protobuf writing of package tracing's exporter: each function
// appends one field (or, for the zero value of a plain field, nothing, as
// proto3 does).

// begin appends the tag of a message field num and one byte for its
// length, and returns where the message's contents start; end fills in
// the length once they are written.
func begin(b []byte, num protowire.Number) ([]byte, int) {
	b = append(protowire.AppendTag(b, num, protowire.BytesType), 0)
	return b, len(b)
}

// end writes the length of the message whose contents started at start
// (see begin), moving the contents when the length takes more than the
// one byte begin kept.
func end(b []byte, start int) []byte {
	n := len(b) - start
	size := protowire.SizeVarint(uint64(n))
	if size > 1 {
		b = append(b, make([]byte, size-1)...)
		copy(b[start+size-1:], b[start:start+n])
	}
	protowire.AppendVarint(b[:start-1], uint64(n))
	return b
}

// appendBytes appends a bytes field, even an empty one.
func appendBytes(b []byte, num protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

// appendString appends a string field unless it is empty.
func appendString(b []byte, num protowire.Number, v string) []byte {
	if v == "" {
		return b
	}
	return appendOneofString(b, num, v)
}

// appendOneofString appends a string field, even an empty one (a oneof
// member is sent whatever its value). Protobuf strings are UTF-8, and a
// collector refuses a request with one that is not: bytes that are not
// UTF-8 (from an agent's reply, say) are sent as U+FFFD.
func appendOneofString(b []byte, num protowire.Number, v string) []byte {
	if !utf8.ValidString(v) {
		v = strings.ToValidUTF8(v, "\uFFFD")
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, v)
}

// appendVarint appends a varint field unless it is zero.
func appendVarint(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

// appendTime appends a timestamp in nanoseconds since the epoch (fixed64),
// unless it is zero; times before the epoch are sent as zero, as the SDK's
// exporter does.
func appendTime(b []byte, num protowire.Number, unixNano int64) []byte {
	if unixNano <= 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.Fixed64Type)
	return protowire.AppendFixed64(b, uint64(unixNano))
}

// appendFixed32 appends a fixed32 field unless it is zero.
func appendFixed32(b []byte, num protowire.Number, v uint32) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.Fixed32Type)
	return protowire.AppendFixed32(b, v)
}

// appendKeyValue appends kv as a KeyValue message field num.
func appendKeyValue(b []byte, num protowire.Number, kv attribute.KeyValue) []byte {
	b, at := begin(b, num)
	b = appendString(b, 1, string(kv.Key))
	b, v := begin(b, 2)
	b = appendValue(b, kv.Value)
	return end(end(b, v), at)
}

// Field numbers of opentelemetry.proto.common.v1.AnyValue.
const (
	anyString protowire.Number = iota + 1
	anyBool
	anyInt
	anyDouble
	anyArray
	anyKeyValues
	anyBytes
)

// appendValue appends the fields of v's AnyValue.
func appendValue(b []byte, v attribute.Value) []byte {
	var at int
	switch v.Type() {
	case attribute.EMPTY:
		return b
	case attribute.BOOL:
		b = protowire.AppendTag(b, anyBool, protowire.VarintType)
		return protowire.AppendVarint(b, protowire.EncodeBool(v.AsBool()))
	case attribute.INT64:
		b = protowire.AppendTag(b, anyInt, protowire.VarintType)
		return protowire.AppendVarint(b, uint64(v.AsInt64()))
	case attribute.FLOAT64:
		b = protowire.AppendTag(b, anyDouble, protowire.Fixed64Type)
		return protowire.AppendFixed64(b, math.Float64bits(v.AsFloat64()))
	case attribute.STRING:
		return appendOneofString(b, anyString, v.AsString())
	case attribute.BYTESLICE:
		return appendBytes(b, anyBytes, v.AsByteSlice())
	case attribute.MAP:
		b, at = begin(b, anyKeyValues)
		for _, kv := range v.AsMap() {
			b = appendKeyValue(b, 1, kv)
		}
		return end(b, at)
	}
	if items, ok := sliceItems(v); ok {
		b, at = begin(b, anyArray)
		for _, item := range items {
			var i int
			b, i = begin(b, 1)
			b = end(appendValue(b, item), i)
		}
		return end(b, at)
	}
	return appendOneofString(b, anyString, "INVALID")
}

// sliceItems returns the items of a slice value, each as a Value.
func sliceItems(v attribute.Value) ([]attribute.Value, bool) {
	switch v.Type() {
	case attribute.SLICE:
		return v.AsSlice(), true
	case attribute.BOOLSLICE:
		return valuesOf(v.AsBoolSlice(), attribute.BoolValue), true
	case attribute.INT64SLICE:
		return valuesOf(v.AsInt64Slice(), attribute.Int64Value), true
	case attribute.FLOAT64SLICE:
		return valuesOf(v.AsFloat64Slice(), attribute.Float64Value), true
	case attribute.STRINGSLICE:
		return valuesOf(v.AsStringSlice(), attribute.StringValue), true
	}
	return nil, false
}

// valuesOf makes each of xs a Value.
func valuesOf[T any](xs []T, value func(T) attribute.Value) []attribute.Value {
	out := make([]attribute.Value, len(xs))
	for i, x := range xs {
		out[i] = value(x)
	}
	return out
}
