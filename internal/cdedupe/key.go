package cdedupe

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/crawlutils/crawlutils/internal/dedupe"
	"github.com/crawlutils/crawlutils/internal/record"
	"github.com/itchyny/gojq"
)

// keyer computes the namespace and key of a record.
type keyer struct {
	namespace string
	scrapy    bool
	query     *gojq.Code // --key, nil for the default keys
}

func newKeyer(o *Options) (*keyer, error) {
	k := &keyer{namespace: o.Namespace, scrapy: o.Scrapy}
	if o.Key != "" {
		q, err := gojq.Parse(o.Key)
		if err != nil {
			return nil, fmt.Errorf("--key %q: %v", o.Key, err)
		}
		code, err := gojq.Compile(q)
		if err != nil {
			return nil, fmt.Errorf("--key %q: %v", o.Key, err)
		}
		k.query = code
	}
	return k, nil
}

// key returns the namespace and key of a record, or ok false when the
// record passes through without a check (other kinds, dont_filter, a --key
// with no value for it). A record it keys is decoded as the record it is
// (a request, with or without a kind, or an item), so a field of the wrong
// type or a number out of its bounds is an error naming the field.
func (k *keyer) key(env record.Envelope) (ns string, key dedupe.Key, ok bool, err error) {
	var req *record.Request
	var item *record.Item
	var crawlID string
	switch {
	case env.IsRequest():
		req = new(record.Request)
		if err := record.Decode(env.Raw, req); err != nil {
			return "", dedupe.Key{}, false, err
		}
		if err := record.CheckURL(req); err != nil {
			return "", dedupe.Key{}, false, err
		}
		crawlID = req.CrawlID
	case env.Kind == record.KindItem:
		item = new(record.Item)
		if err := record.Decode(env.Raw, item); err != nil {
			return "", dedupe.Key{}, false, err
		}
		if err := record.CheckItem(item); err != nil {
			return "", dedupe.Key{}, false, err
		}
		crawlID = item.CrawlID
	case k.query != nil:
		// Any record is keyed by --key, in its crawl's namespace.
		var h struct {
			CrawlID string `json:"crawlid"`
		}
		if err := record.Decode(env.Raw, &h); err != nil {
			return "", dedupe.Key{}, false, err
		}
		crawlID = h.CrawlID
	default:
		return "", dedupe.Key{}, false, nil
	}
	ns = k.namespace
	if ns == "" {
		ns = crawlID
	}
	if ns == "" {
		ns = "default"
	}
	switch {
	case k.query != nil:
		b, ok, err := k.eval(env.Raw)
		if err != nil || !ok {
			return "", dedupe.Key{}, false, err
		}
		return ns, dedupe.KeyOf(b), true, nil
	case req != nil:
		if req.DontFilter {
			return "", dedupe.Key{}, false, nil
		}
		method := req.Method
		if method == "" {
			method = "GET"
		}
		key, err := dedupe.RequestKey(method, req.URL, req.Body, k.scrapy)
		if err != nil {
			return "", dedupe.Key{}, false, fmt.Errorf("no fingerprint for url %q: %v", req.URL, err)
		}
		return ns, key, true, nil
	default:
		var b bytes.Buffer
		if err := json.Compact(&b, item.Data); err != nil {
			return "", dedupe.Key{}, false, fmt.Errorf(`field "data": %v`, err)
		}
		return ns, dedupe.KeyOf(b.Bytes()), true, nil
	}
}

// eval runs --key on the record and returns its first value as canonical
// JSON (object keys sorted, numbers as written in the record), or ok false
// when it has none or null.
func (k *keyer) eval(raw []byte) ([]byte, bool, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false, err
	}
	it := k.query.Run(record.JQValue(v))
	out, has := it.Next()
	if !has || out == nil {
		return nil, false, nil
	}
	if err, isErr := out.(error); isErr {
		return nil, false, fmt.Errorf("--key: %v", err)
	}
	b, err := keyJSON(out)
	return b, err == nil, err
}

// keyJSON writes a value of --key as JSON. A number the expression
// computed can be infinite or NaN, which encoding/json refuses: it is then
// written as jq writes it, ±1.7976931348623157e+308 and null.
func keyJSON(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	var unsupported *json.UnsupportedValueError
	if errors.As(err, &unsupported) {
		b, err = json.Marshal(finite(v))
	}
	if err != nil {
		return nil, fmt.Errorf("--key: cannot write its value as JSON: %v", strings.TrimPrefix(err.Error(), "json: "))
	}
	return b, nil
}

// finite returns v with infinities and NaN replaced as jq writes them.
func finite(v any) any {
	switch x := v.(type) {
	case float64:
		switch {
		case math.IsNaN(x):
			return nil
		case math.IsInf(x, 0):
			return math.Copysign(math.MaxFloat64, x)
		}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = finite(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = finite(e)
		}
		return out
	}
	return v
}
