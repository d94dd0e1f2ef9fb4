// Package layers holds no code: its test checks the layers the packages
// of crawlutils are built in, from the bottom up.
//
//  1. storage: internal/storage opens the SQLite file or the Redis the
//     state lives in (connections, retries, WAIT, cluster checks, URL
//     options); it and its driver-free internal/storage/storeurl (what a
//     store's name is, and its password hidden) import no other layer.
//  2. stores: internal/frontier, internal/dedupe, internal/throttle and
//     internal/toolstats keep their tables and keys through storage.
//  3. the command shell: internal/cli (flags, stats, errors, exit codes,
//     --stats-to through internal/statspub) links no database driver;
//     it publishes a command's stats through the statspub.Opener its
//     Command is given.
//  4. tools: internal/cfetch, cextract, cexport, cdedupe, cthrottle,
//     cqueue build on cli and on the stores they need; cextract needs
//     none, and links no driver.
//  5. cmd/*: a few lines each, wiring a tool package into cli.Main. The
//     binary of cextract links no driver either: its --stats-to goes
//     through a cqueue stats-relay process (statspub.RelayOpener).
//
// A package may import only from the layers below it.
package layers
