//go:build !unix

package storage

// whyNotWritable is err: the directory's access is not checked here.
func whyNotWritable(_ string, err error) error { return err }
