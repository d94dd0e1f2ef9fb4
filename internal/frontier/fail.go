package frontier

// Fail is the answer of a stage that could not process a leased request
// (an invalid record, nested too deep, too large): an ack carrying an
// error. Apply dead-letters the request with Reason, at once: it is never
// handed out again, and no longer holds the crawl open.
type Fail struct {
	// Lease is the request's lease, as Pop handed it out.
	Lease string
	// Reason is a short code saying why ("invalid_record"); it is stored
	// as FailReason returns it.
	Reason string
}

// MaxReasonLen is the length, in bytes, a stored fail reason is cut to.
const MaxReasonLen = 64

// DefaultFailReason is the reason stored for a Fail whose Reason has no
// letter or digit.
const DefaultFailReason = "failed"

// FailReason returns reason as Apply stores it, so a hostile or verbose
// message stays a short code fit for a stats key or a jq filter: ASCII
// letters lowercased, every run of other bytes than a-z and 0-9
// (underscores included) made one "_", none at either end, at most
// MaxReasonLen bytes; DefaultFailReason when nothing is left. "Invalid
// record: nested too deep" is stored as "invalid_record_nested_too_deep".
func FailReason(reason string) string {
	b := make([]byte, 0, min(len(reason), MaxReasonLen))
	sep := false
	for i := 0; i < len(reason) && len(b) < MaxReasonLen; i++ {
		c := reason[i]
		switch {
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		default:
			sep = len(b) > 0
			continue
		}
		if sep {
			if len(b)+1 >= MaxReasonLen {
				break
			}
			b = append(b, '_')
			sep = false
		}
		b = append(b, c)
	}
	if len(b) == 0 {
		return DefaultFailReason
	}
	return string(b)
}
