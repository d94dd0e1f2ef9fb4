package cdedupe

import (
	"bytes"
	"encoding/json"
	"fmt"

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

// head is what every record may carry that the keys need.
type head struct {
	Kind       string          `json:"kind"`
	CrawlID    string          `json:"crawlid"`
	URL        string          `json:"url"`
	Method     string          `json:"method"`
	Body       string          `json:"body"`
	DontFilter bool            `json:"dont_filter"`
	Data       json.RawMessage `json:"data"`
}

// key returns the namespace and key of a record, or ok false when the
// record passes through without a check (other kinds, dont_filter, a --key
// with no value for it).
func (k *keyer) key(env record.Envelope) (ns string, key dedupe.Key, ok bool, err error) {
	var h head
	if err := json.Unmarshal(env.Raw, &h); err != nil {
		return "", dedupe.Key{}, false, err
	}
	ns = k.namespace
	if ns == "" {
		ns = h.CrawlID
	}
	if ns == "" {
		ns = "default"
	}
	if k.query != nil {
		b, ok, err := k.eval(env.Raw)
		if err != nil || !ok {
			return "", dedupe.Key{}, false, err
		}
		return ns, dedupe.KeyOf(b), true, nil
	}
	switch h.Kind {
	case record.KindRequest, "":
		if h.Kind == "" && h.URL == "" {
			return "", dedupe.Key{}, false, nil
		}
		if h.DontFilter {
			return "", dedupe.Key{}, false, nil
		}
		method := h.Method
		if method == "" {
			method = "GET"
		}
		key, err := dedupe.RequestKey(method, h.URL, h.Body, k.scrapy)
		if err != nil {
			return "", dedupe.Key{}, false, fmt.Errorf("no fingerprint for url %q: %v", h.URL, err)
		}
		return ns, key, true, nil
	case record.KindItem:
		var b bytes.Buffer
		if err := json.Compact(&b, h.Data); err != nil {
			return "", dedupe.Key{}, false, err
		}
		return ns, dedupe.KeyOf(b.Bytes()), true, nil
	}
	return "", dedupe.Key{}, false, nil
}

// eval runs --key on the record and returns its first value as canonical
// JSON (object keys sorted), or ok false when it has none or null.
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
	b, err := json.Marshal(out)
	return b, err == nil, err
}
