// Package rules reads cextract's rules files: YAML (or JSON, one schema)
// that say which items to extract from which responses, which links to
// follow and which sitemaps to read — Scrapy's spiders, Rules,
// LinkExtractors, ItemLoaders and sitemap/feed spiders, as data
// (docs/rules.md is the reference, docs/rules.schema.json its JSON Schema).
//
// Parse checks everything that can be checked without the selector engines:
// the structure (unknown keys are errors, with a suggestion), types,
// regular expressions and processors. Selectors are kept as written, with
// their position, for cextract to compile; it reports their errors through
// Errorf so that every message reads "file:line:col: …".
package rules
