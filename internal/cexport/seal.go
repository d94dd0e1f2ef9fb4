package cexport

import "os"

// sealedFile keeps a JSON array or an XML document in a regular file
// complete between writes. seal writes the document's closing (the "]" or
// "</items>") after the content written so far; the next Write first cuts
// it off again (ftruncate, one step), then writes on where the content
// ends. So whenever the export has been flushed, the file is one valid
// document, and a run killed at any moment leaves either that, or the
// document cut short after some of its items, which the next -o run
// repairs (see resume.go).
//
// It writes at explicit offsets (WriteAt): the file must not be opened
// with O_APPEND. It is not safe for concurrent use.
type sealedFile struct {
	f *os.File
	// end is the length of the content, without the closing.
	end int64
	// sealed says a closing follows end in the file.
	sealed bool
}

// Write appends p to the content, cutting the closing off first.
func (s *sealedFile) Write(p []byte) (int, error) {
	if s.sealed {
		if err := s.f.Truncate(s.end); err != nil {
			return 0, err
		}
		s.sealed = false
	}
	n, err := s.f.WriteAt(p, s.end)
	s.end += int64(n)
	return n, err
}

// seal writes closing after the content, unless a closing is there
// already (nothing was written since).
func (s *sealedFile) seal(closing string) error {
	if s.sealed {
		return nil
	}
	if _, err := s.f.WriteAt([]byte(closing), s.end); err != nil {
		return err
	}
	s.sealed = true
	return nil
}
