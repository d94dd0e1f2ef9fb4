// Package e2e holds the pipeline tests: scripts under testdata/pipeline that
// run the real commands, piped together, against the demo site on
// 127.0.0.1, and a test that runs scripts/demo.sh and checks its CSV against
// the demo site's ground truth, field by field. It has no code of its own.
package e2e
