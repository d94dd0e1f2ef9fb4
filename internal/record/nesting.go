package record

// MaxRequestNesting bounds how deeply a request's values (attrs, meta,
// headers) may nest. Downstream tools wrap a request two levels deeper (a
// response holds its request; an item its attrs), and every JSON decoder
// stops at 10,000 levels (maxDepth): a request that deep would be fetched,
// then be unreadable by the next command. 512 levels is far beyond any
// real attrs.
const MaxRequestNesting = 512

// Nesting returns how deeply the arrays and objects of the JSON text b
// nest (1 for a flat object), counting brackets outside strings; it does
// not check the grammar.
func Nesting(b []byte) int {
	depth, most := 0, 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			if end := scanString(b, i); end > 0 {
				i = end - 1
			} else {
				return most
			}
		case '{', '[':
			depth++
			most = max(most, depth)
		case '}', ']':
			depth--
		}
	}
	return most
}
