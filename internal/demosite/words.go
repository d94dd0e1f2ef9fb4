package demosite

// Word lists the catalogue is generated from. Every list is fixed: changing
// one changes every generated site, so treat them as part of the format.
//
// The lists are grouped by the character repertoire they need, so that a
// product served in a legacy charset only gets words that charset can
// represent:
//
//   - plain ASCII words fit every charset;
//   - latin1Words fit ISO-8859-1 and windows-1252;
//   - cp1252Words additionally use the windows-1252-only characters
//     “ ” ‘ ’ € — (0x80–0x9F in windows-1252, C1 controls in ISO-8859-1);
//   - japaneseWords fit Shift_JIS (JIS X 0208 level 1 kanji and kana);
//   - koreanWords fit EUC-KR (KS X 1001 Hangul syllables).

// categorySpec describes one category: its display name and either a fixed
// product count (tiny categories) or a relative weight.
type categorySpec struct {
	name   string
	fixed  int // exact number of products, when > 0
	weight int // relative share of the remaining products, when fixed == 0
}

// categorySpecs are the 16 categories. The four tiny ones have a fixed,
// small number of products; the rest share the remaining products by
// weight, so "Books" ends up with hundreds and "Travel" with a handful.
var categorySpecs = []categorySpec{
	{name: "Antiques", fixed: 1},
	{name: "Stationery", fixed: 2},
	{name: "Health", fixed: 3},
	{name: "Crafts", fixed: 5},
	{name: "Books", weight: 300},
	{name: "Kitchen", weight: 220},
	{name: "Electronics", weight: 160},
	{name: "Tools", weight: 120},
	{name: "Garden & Outdoor", weight: 80},
	{name: "Toys & Games", weight: 60},
	{name: "Music", weight: 40},
	{name: "Home Décor", weight: 30},
	{name: "Office", weight: 20},
	{name: "Sports", weight: 15},
	{name: "Pet Supplies", weight: 12},
	{name: "Travel", weight: 4},
}

// baseHrefCategory is the category whose listing pages carry
// <base href="/catalogue/">.
const baseHrefCategory = "Kitchen"

var adjectives = []string{
	"Blue", "Red", "Green", "Ancient", "Tiny", "Grand", "Silent", "Golden",
	"Rusty", "Clever", "Quiet", "Bright", "Velvet", "Iron", "Crystal",
	"Wooden", "Lucky", "Midnight", "Northern", "Hidden", "Copper", "Amber",
	"Humble", "Royal", "Electric", "Gentle", "Wild", "Marble", "Paper",
	"Silver",
}

var nouns = []string{
	"Widget", "Lantern", "Teapot", "Compass", "Notebook", "Garden Gnome",
	"Kettle", "Puzzle", "Guitar", "Atlas", "Hammer", "Clock", "Blanket",
	"Telescope", "Backpack", "Journal", "Candle", "Vase", "Whistle", "Map",
	"Toolbox", "Umbrella", "Spatula", "Radio", "Kite", "Harmonica", "Mug",
	"Birdhouse", "Chess Set", "Sketchbook",
}

var suffixes = []string{
	"", "", "", "", "", ", Vol. 2", ", Vol. 3", " (Deluxe Edition)",
	" Mk II", " Pro", " for Beginners", " 2000",
}

// ampersandPairs give titles with an "&" (rendered as &amp;).
var ampersandPairs = []string{
	"Salt & Pepper", "Rock & Roll", "Bits & Pieces", "Fish & Chips",
	"Pen & Ink", "Needle & Thread",
}

// possessives give titles with an apostrophe (rendered as &#39;).
var possessives = []string{
	"Grandma's", "O'Reilly's", "The Captain's", "Nobody's", "Santa's",
	"Mrs. O'Leary's",
}

// latin1Words are representable in ISO-8859-1 and windows-1252.
var latin1Words = []string{
	"Café", "Crème Brûlée", "Über", "Straße", "Façade", "Naïve",
	"Smörgåsbord", "Jalapeño", "Déjà Vu", "Müsli", "Piñata", "Fräulein",
}

// cp1252Words need windows-1252 (or Unicode): curly quotes, euro, dash.
var cp1252Words = []string{
	"“Deluxe”", "€5 Special", "‘Classic’", "Night — Day", "“Über” Edition",
}

// japaneseWords are representable in Shift_JIS.
var japaneseWords = []string{
	"東京の", "桜の", "猫の", "日本の", "京都の", "夏の", "秋の",
}

var japaneseNouns = []string{
	"茶碗", "風鈴", "手ぬぐい", "折り紙", "花瓶", "扇子", "時計",
}

// koreanWords are representable in EUC-KR.
var koreanWords = []string{
	"서울의", "한국의", "부산의", "가을의", "봄의",
}

var koreanNouns = []string{
	"도자기", "부채", "찻잔", "보자기", "시계", "공책",
}

// Description building blocks. %s verbs are filled with words; all
// sentences are single-line with single spaces.
var descOpeners = []string{ // %[1]s is a noun, %[2]s a material
	"Crafted from %[2]s, this %[1]s is built to last.",
	"Nobody asked for yet another %[1]s made of %[2]s, and yet here it is.",
	"This is the %[1]s that even %[2]s fans will approve of.",
	"This %[1]s pairs nicely with anything made of %[2]s.",
}

var descMaterials = []string{
	"recycled oak", "brushed steel", "organic cotton", "bamboo",
	"hand-blown glass", "reclaimed copper", "walnut", "tea",
}

var descMiddles = []string{
	"It's the kind of thing you didn't know you needed.",
	"Perfect for weekends & weekdays alike.",
	"Fits bags < 30 L and shelves > 20 cm deep.",
	"Our testers called it \"surprisingly sturdy\".",
	"Assembly takes about 5 minutes & no tools.",
	"Ships in a plain box; gift wrap is available at checkout.",
	"Each one is inspected by hand before it leaves the workshop.",
	"It won't win any awards, but it'll never let you down.",
	"Measures 12 x 30 cm and weighs just 400 g.",
	"Available while stocks last.",
}

var descClosers = []string{
	"Satisfaction guaranteed, or your money back.",
	"Makes a great gift for the person who has everything.",
	"Keep away from open flames & small children.",
	"Don't forget to leave a review!",
}

// descLatin1 sentences fit ISO-8859-1 and windows-1252.
var descLatin1 = []string{
	"Inspired by a little café on the Rue de la Paix.",
	"Über-practical and naïvely charming.",
	"As used in every Straße of Düsseldorf.",
	"Señor García swears by it.",
}

// descCP1252 sentences need windows-1252 (or Unicode).
var descCP1252 = []string{
	"Critics call it “a quiet triumph” — we agree.",
	"Only €12 more than the basic model, and worth every cent.",
	"The ‘original’ design, unchanged since 1998.",
}

// descJapanese sentences fit Shift_JIS.
var descJapanese = []string{
	"日本の職人が一つずつ手作りしています。",
	"毎日の生活に小さな喜びを。",
	"贈り物にも最適です。",
}

// descKorean sentences fit EUC-KR.
var descKorean = []string{
	"한국의 장인이 하나하나 손으로 만들었습니다.",
	"선물용으로도 좋습니다.",
	"매일 사용하기 좋은 제품입니다.",
}

// slugFold maps the accented letters used above to ASCII for slugs.
var slugFold = map[rune]string{
	'é': "e", 'è': "e", 'ê': "e", 'ë': "e", 'É': "e",
	'á': "a", 'à': "a", 'â': "a", 'ä': "a", 'å': "a",
	'í': "i", 'ï': "i", 'î': "i",
	'ó': "o", 'ô': "o", 'ö': "o",
	'ú': "u", 'û': "u", 'ü': "u", 'Ü': "u",
	'ç': "c", 'ñ': "n", 'ß': "ss", '€': "eur",
}
