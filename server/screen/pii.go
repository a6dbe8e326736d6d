package screen

import (
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/nyaruka/phonenumbers"
)

var (
	emailRE     = foldedRE(`([a-z0-9._%+-]+)@([a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,})`)
	atWord      = `(?:\(at\)|\[at\]|\{at\}|<at>|\sat\s|\sarroba\s|\(arroba\)|\[arroba\]|\sbei\s|\(ät\)|\sсобака\s|\sчерез\s)`
	dotWord     = `(?:\(dot\)|\[dot\]|\{dot\}|<dot>|\sdot\s|\spunto\s|\(punto\)|\spunkt\s|\(punkt\)|\spoint\s|\sточка\s|\sponto\s|\s\.\s)`
	emailSpoken = foldedRE(`\b([a-z0-9._-]{2,}(?:` + dotWord + `[a-z0-9_-]{2,})?)\s*` + atWord + `\s*([a-z0-9-]{2,})\s*` + dotWord + `\s*([a-z]{2,})\b`)
	// A phone number as written: digits in groups with any separator, or in one run; or after a plus sign.
	phoneRE   = foldedRE(`(?:^|[^\w.:/#-])(\+?\(?\d[\d\s().\-/·_*]{6,22}\d)(?:$|[^\w:/-])`)
	cardRE    = foldedRE(`\b(?:\d[ \-.|*/_]?){12,18}\d\b`)
	ibanRE    = foldedRE(`\b[a-z]{2}\d{2}(?:[ ]?[a-z0-9]{4}){2,7}(?:[ ]?[a-z0-9]{1,4})?\b`)
	ssnRE     = foldedRE(`\b(\d{3})[- ](\d{2})[- ](\d{4})\b`)
	streetRE  = foldedRE(`\b\d{1,5}[a-z]?,?\s+(?:[a-z]+\s+){1,3}(?:street|st|avenue|ave|road|rd|lane|ln|boulevard|blvd|drive|dr|court|ct|terrace|crescent|close|place|pl|square|sq|highway|hwy|parkway|pkwy|rua|calle|avenida|strasse|straße|straat|rue|allee|weg|gasse|platz|ulitsa|way|grove|mews|circle|cir|trail)\b\.?`)
	streetPre = foldedRE(`\b(?:rua|calle|avenida|rue|via|avenue|ulica|ul\.|улица|ул\.|viale|piazza|plaza|carrer|avinguda)\s+(?:[\p{L}'.-]+\s+){1,4}\d{1,5}\b|\b\d{1,5},?\s+(?:rua|calle|avenida|rue|via|avenue)\s+[a-z]+|\b[\p{L}-]+(?:straße|strasse|str\.|weg|gasse|allee|platz|laan|straat|gracht|vej|gatan|gata)\s+\d{1,4}[a-z]?\b`)
	secretRE  = foldedRE(`\b(?:sk-[a-z0-9_-]{20,}|sk_live_[a-z0-9]{16,}|rk_live_[a-z0-9]{16,}|ghp_[a-z0-9]{30,}|gho_[a-z0-9]{30,}|github_pat_[a-z0-9_]{30,}|xox[abpr]-[a-z0-9-]{10,}|akia[0-9a-z]{16}|aiza[0-9a-z_-]{35}|glpat-[a-z0-9_-]{20,}|hf_[a-z0-9]{30,}|ac[a-f0-9]{32})\b|-----begin [a-z ]*private key-----|\b(?:postgres(?:ql)?|mysql|mongodb(?:\+srv)?|redis|amqp)://[^\s:/]+:[^\s@/]+@`)
	// A detail named as what it is ("my passport number is ...", "DNI: ...", "password: ...").
	labelled  = foldedRE(`\b(?:home address|address|phone number|phone|mobile|cell|handy|telefon\w*|teléfono|telefone|телефон\w*|social security(?: number)?|ssn|passport(?: number| no\.?)?|pasaporte|passeport|reisepass|паспорт\w*|bank account|account number|routing number|sort code|credit card|card number|cvv|cvc|pin|password|passwort|contraseña|senha|mot de passe|пароль|parola|dni|nie|cpf|rg|aadhaar|pan|pesel|bsn|nino|national insurance(?: number)?|tax id|steuer-?id|steuernummer|codice fiscale|nif|nir|my number|マイナンバー|주민등록번호|身份证(?:号)?|tc kimlik(?: no)?|kimlik no|snils|снилс|инн|sin|medicare|tfn|iban|seed phrase|recovery phrase|private key)\s*(?:no\.?|number|nr\.?|#)?\s*(?:is|=|:|es|ist|est|é|è|это|：|は|는|是)\s*[:=]?\s*([^\s,;]*\d[^\s,;]*(?:\s\d[^\s,;]*){0,3}|[^\s,;]{6,})`)
	orderNear = foldedRE(`(?:\b(?:number|nomor|numer|numero|no\.?|nr\.?|so)\s(?:resi|pesanan|pedido|zamowienia|paczki|przesylki|don hang|van don|theo doi)(?:\s[a-z]{2,8})?\s*[:#]?\s*|\b(?:order|invoice|ticket|case|ref|reference|bestellung|rechnung|pedido|factura|commande|encomenda|ordine|zamowienie|siparis|заказ|tracking|pesanan|resi|bestelling|parcel|shipment|package|consignment|waybill|awb|kargo|paket|don hang|id|nr|no|build|version|release|pid|port|line|timestamp|epoch|seed|hash|sha|commit|issue|pr|run|job)\.?\s*(?:number|no\.?|nr\.?|n\.?\s?[º°]|numarasi|numero|nummer|номер|nomor|numer|#|:)?\s*(?:is|was|=|:|es|ist|est|e)?\s*|#\s*|(?:bestellnummer|auftragsnummer|rechnungsnummer|sendungsnummer|订单号?|订单编号|单号|快递单号|注文番号|注文|伝票番号|주문\s?번호|운송장\s?번호|ऑर्डर\s?(?:नंबर|संख्या|आईडी|आई\s?डी)?|طلب رقم|رقم الطلب)\s*[:：]?\s*)$`)
	phoneNear = foldedRE(`(?:call|text|phone|tel|whatsapp|signal|telegram|number|reach|ring|mobile|cell|handy|móvil|movil|celular|portable|telefon\w*|teléfono|telefone|телефон|номер|電話|电话|전화|फोन|هاتف|رقم)\W{0,3}(?:\w+\W+){0,3}$`)
	spacedAt  = foldedRE(`[a-z0-9._%+-]+\s*@\s*[a-z0-9-]+(?:\s*\.\s*[a-z0-9-]+)*\s*\.\s*[a-z]{2,}\b`) // "jane @ gmail . com"
	// A group of digits with an o, l or i among them, between separators: how a number is written past a filter.
	letterDigit = foldedRE(`\b(?:[0-9]+[oli][0-9oli]*|[oli]+[0-9][0-9oli]*)\b`)
	decimalRE   = foldedRE(`^\d+[.,]\d{1,3}$`)
	dateRE      = foldedRE(`^\d{4}[-./]\d{1,2}[-./]\d{1,2}|^\d{1,2}[-./]\d{1,2}[-./]\d{2,4}$`)
	placeholder = foldedRE(`(?:example|anytown|john doe|jane doe|jane roe|placeholder|your_?key|xxxx|<[^>]*>|\*\*\*|redacted|changeme|dummy|fake|sample|test)`)
)

// labelledWords finds, in one pass, whether any label of a personal detail is in a text at all.
var labelledWords = newMatcherSet([]string{labelled.String()}, false)

// The detectors' expressions that start with one of a few words or with a digit, read from where those are.
var labelledScan, streetScan = newLeadScan(labelled), newLeadScan(streetRE)

// cueWords returns the words of t (as tokens reads them) that the detectors look for first: "at" and "dot" in their
// languages, and the street types. It writes no word out.
func cueWords(t string) map[string]bool { return readNoteWords(t).cues }

// cueAndNumberWords is cueWords, and how many of the words of t are spelled digits (numberWords), in the same pass:
// spelledDigits can find a number only in a text with two of them.
func cueAndNumberWords(t string) (map[string]bool, int) {
	nw := readNoteWords(t)
	return nw.cues, nw.numbers
}

// noteWords are the words of a text as the detectors that weigh words read them, in one pass and one lookup per
// word (two for a word with a letter doubled): where each word of two letters or more is and how common it is
// turned (turnedWordsOf, read squeezed), and the personal-data cue words and spelled digits (cueAndNumberWords,
// read as written).
type noteWords struct {
	turned  []turnedWord // never nil
	cues    map[string]bool
	numbers int
}

func readNoteWords(text string) noteWords { return (*viewMemory)(nil).noteWords(text) }

// noteWords is readNoteWords, its words' places written in m.
func (m *viewMemory) noteWords(text string) noteWords {
	nw := noteWords{turned: m.turnedWords(len(text)/5 + 1)}
	var fullMem, squeezedMem [32]byte
	full, squeezed := fullMem[:0], squeezedMem[:0] // the word as written, and squeezed
	var prev rune = -1
	start := -1
	end := func(at int) {
		if len(full) == 0 {
			return
		}
		flags := wordFlags[string(full)]
		if len(squeezed) >= 2 {
			turned := flags
			if len(squeezed) != len(full) {
				turned = wordFlags[string(squeezed)]
			}
			nw.turned = append(nw.turned, turnedWord{start, at, turned & turnedFlags})
		}
		if flags&cueWord != 0 {
			if nw.cues == nil {
				nw.cues = map[string]bool{}
			}
			nw.cues[string(full)] = true
		}
		if flags&numberWord != 0 {
			nw.numbers++
		}
		full, squeezed, prev = full[:0], squeezed[:0], -1
	}
	for i, r := range text { // as eachWordAt reads words
		if r == '\'' {
			continue
		}
		if isLetterRune(r) {
			if start < 0 {
				start = i
			}
			full = utf8.AppendRune(full, r)
			if r != prev {
				squeezed, prev = utf8.AppendRune(squeezed, r), r
			}
			continue
		}
		end(i)
		start = -1
	}
	end(len(text))
	return nw
}

// wordFlags says of each word what turnedWords says of it (bits 0 to 3) and what piiWords says (cueWord,
// numberWord): one lookup for both (filled by init, after them).
var wordFlags = map[string]uint8{}

const turnedFlags = 0xF

// piiWords says of each cue word and number word which it is, for one lookup per word (filled by init, after
// numberWords).
var piiWords = map[string]uint8{}

const (
	cueWord uint8 = 1 << (iota + 4) // above turnedWords' bits, for wordFlags
	numberWord
)

var cues = func() map[string]bool {
	m := map[string]bool{"at": true, "arroba": true, "bei": true, "ät": true, "собака": true, "dot": true, "punto": true,
		"punkt": true, "point": true, "ponto": true, "точка": true}
	for w := range streetCues {
		m[w] = true
	}
	return m
}()

// streetCues are the street types as cueWords finds them (without their dots).
var streetCues = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range streetWords {
		m[strings.TrimSuffix(w, ".")] = true
	}
	return m
}()

// streetNamed reports a word of a street address: a street type among the cue words of t (words), or a word that
// ends in one ("Hauptstraße").
func streetNamed(t string, words map[string]bool) bool {
	for w := range words { // the few cue words the note holds, if any
		if streetCues[w] {
			return true
		}
	}
	return streetEndings.in(t)
}

// streetEndings are the street types that end words ("Hauptstraße", "Keizersgracht").
var streetEndings = newAnyOf("straße", "strasse", "str.", "weg ", "gasse", "allee", "platz", "laan", "straat", "gracht", "vej ", "gatan", "gata ")

// testAddress reports an address that the note says is test or example data ("test data for the address form:
// 10 Downing St"), with no one said to live there and no one sent to it.
func testAddress(t string, start, end int) bool {
	around := t[max(0, start-200):min(len(t), end+60)]
	return testData.MatchString(around) && !residence.MatchString(around) && !sentThere.MatchString(around)
}

// publicPlace reports an address given as a public place's: a museum, station, embassy, shop or venue, or what
// visitors are told (tickets, opening hours, entry), in a note that says nothing of anyone living there
// ("Rijksmuseum, Museumstraat 1").
func publicPlace(t string, start, end int) bool {
	around := t[max(0, start-120):min(len(t), end+120)]
	return venue.MatchString(around) && !residence.MatchString(t) && !sentThere.MatchString(around)
}

var (
	// Test data said to be test data, not the word "test" anywhere ("the paternity test proved it: ...").
	testData = foldedRE(`\b(?:test|sample|example|dummy|fake|placeholder|fixture|mock)\s(?:address(?:es)?|data|fixtures?|records?|entr(?:y|ies)|rows?)\b|\b(?:address(?:es)?|data|fixtures?) for (?:the |a |our )?(?:test|tests|form|demo|address form)\b|teste de endereço|dados de teste|datos de prueba|testdaten|beispieladresse|adresse de test`)
	// A reader sent to the address: a visit, eggs, money to collect.
	sentThere = foldedRE(`\b(?:go|show up|visit|pay (?:him|her|them) a visit|bring|collect|find (?:him|her|them)|knock|make (?:him|her|them) pay|egg|eggs)\b`)
	venue     = foldedRE(`(?:landmarks?|museu|museo|musée|musee|muzeum|музе|basilica|basílica|basilika|sagrada|colosse?o|colosseum|kaufhaus|department store|tower|\btour\b|tickets?|entrance|admission|opening hours|open daily|exhibition|visitors?|entrada|eintritt|entrée|ingresso|billets?|biglietti|öffnungszeiten|horario|orario|horaires|galler|galerie|librar|biblio|station|bahnhof|estaci[oó]n|gare\b|airport|flughafen|aeropuerto|aéroport|universit|hospital|krankenhaus|hôpital|theat|teatro|théâtre|cathedral|kathedrale|catedral|cathédrale|church|kirche|iglesia|église|mosque|moschee|mezquita|synagog|temple|\bpark\b|\bzoo\b|stadi|\bstade\b|hotel|restaurant|\bcaf[eé]\b|\bpub\b|\bshop\b|\bstore\b|\bmall\b|market|markt|mercado|marché|headquarters|\bhq\b|embassy|botschaft|embajada|ambassade|consulate|city hall|town hall|rathaus|ayuntamiento|mairie|palace|palais|palacio|palazzo|castle|schloss|monument|memorial|\bvenue|conference|meetup|arena|\bopera\b|\boper\b|white house|opera house|parliament|parlament|bundestag|capitol|ministry|court ?house|post office|library|school of|institute|institut|instituto|centre|center|zentrum|centro|mailing address|postal address|visitor)`)
	residence = foldedRE(`\b(?:lives?|living|resides?|residence|home|house of|apartment|apt|flat|he|she|him|his|her|they|them|their|wife|husband|kids|family|neighbou?r|door|buzzer|is at|stays?|staying|wohnt|wohnung|zuhause|vive|mora|habite|domicile|vit à|живет|живёт|квартир\w*|dox\w*|find (?:him|her|them)|his address|her address|their address|private address|home address)\b`)
)

// notAStreetName reports a match of streetRE whose words between the number and the street type are words of a
// sentence (to, the, and, we...), not of a street's name.
func notAStreetName(m string) bool {
	f := strings.Fields(m)
	if len(f) < 3 {
		return false
	}
	for _, w := range f[1 : len(f)-1] {
		if sentenceWords[strings.Trim(w, ",.")] {
			return true
		}
	}
	// "2 TB hard drive", "a USB drive": a drive that holds data.
	return strings.HasPrefix(f[len(f)-1], "dr") && notDrives[strings.Trim(f[len(f)-2], ",.")]
}

var notDrives = map[string]bool{"hard": true, "flash": true, "usb": true, "disk": true, "thumb": true, "external": true,
	"network": true, "shared": true, "google": true, "ssd": true, "tape": true, "cd": true, "dvd": true, "optical": true,
	"test": true, "boot": true, "system": true, "data": true, "backup": true, "nvme": true, "sata": true}

var sentenceWords = map[string]bool{"to": true, "the": true, "a": true, "an": true, "and": true, "or": true, "of": true,
	"for": true, "in": true, "on": true, "at": true, "is": true, "are": true, "was": true, "were": true, "we": true,
	"you": true, "i": true, "it": true, "this": true, "that": true, "please": true, "will": true, "can": true,
	"should": true, "must": true, "then": true, "not": true, "with": true, "from": true, "by": true, "as": true}

var streetWords = []string{"way", "grove", "mews", "circle", "cir", "trail", "street", "st", "ave", "avenue", "road", "rd", "lane", "ln", "boulevard", "blvd", "drive", "dr",
	"court", "ct", "terrace", "crescent", "close", "place", "pl", "square", "sq", "highway", "hwy", "parkway", "pkwy",
	"rua", "calle", "avenida", "strasse", "straße", "straat", "via", "rue", "str.", "weg", "gasse", "allee", "platz",
	"laan", "gracht", "ulica", "улица", "ул.", "piazza", "plaza", "carrer", "viale"}

// Email addresses that are not a person's: the reserved example domains, and the role addresses of organisations.
var (
	// A domain with "example" as one of its words ("hs-example.de", "pacote.example.br") is documentation's too.
	reservedDomain = foldedRE(`(?:^|\.)(?:example\.(?:com|org|net|edu)|example|test|invalid|localhost|local)$|^example\.|(?:^|[.-])example(?:[.-]|$)`)
	roleLocal      = foldedRE(`^(?:[a-z0-9]+[._-])?(?:security|secure|support|help|helpdesk|info|contact|press|media|abuse|privacy|dpo|legal|hello|admin|noreply|no-reply|donotreply|sales|team|webmaster|postmaster|hostmaster|cfp|jobs|careers|feedback|billing|office|service|enquiries|inquiries|hr|psirt|cert|disclosure|bugs?|report|reports|vulnerabilit(?:y|ies)|bounty|compliance|partners|marketing|newsletter|events|community|docs|maintainers|ops|oncall|it|accounts|editor|editors|letters|tips|news|redaktion|kontakt|soporte|contacto|ayuda|presse|rgpd)(?:[+._-][a-z0-9]+)?$`)
	freeMail       = foldedRE(`^(?:gmail|googlemail|yahoo|ymail|hotmail|outlook|live|msn|aol|icloud|me|mac|proton|protonmail|pm|gmx|web|mail|yandex|qq|163|126|naver|daum|hanmail|libero|orange|free|wanadoo|t-online|seznam|wp|o2|interia|rambler|bk|inbox|list|zoho|zohomail|fastmail|tutanota|tuta|hey|posteo|mailbox|duck|disroot|riseup|hushmail|runbox|startmail|mailfence|gmx|seznam|email)\.`)
	ispMail        = foldedRE(`^(?:comcast|verizon|att|sbcglobal|bellsouth|cox|charter|earthlink|btinternet|sky|virginmedia|talktalk|ntlworld|orange|sfr|laposte|bbox|neuf|alice|tiscali|virgilio|tin|arcor|freenet|telenet|skynet|ziggo|kpnmail|planet|home|xs4all|bluewin|telia|online|docomo|ezweb|softbank|i\.softbank|au|telus|shaw|rogers|sympatico|bigpond|optusnet|iinet|xtra|uol|bol|terra|ig|prodigy|telmex|movistar|vodafone|tim|wind|onet|o2|interia|yandex|ukr|i|bk|inbox|list)\.`)
	privateSaid    = foldedRE(`\b(?:personal|private|home|her|his|their|him|them|reach|person|daily|flood|spam|inbox|dm|harass\w*|dox\w*|leak\w*|real|privat\w*|persönlich\w*|personnel\w*|personale|pessoal|личн\w*)\b`)
	// Phone numbers named as a service: helplines, hotlines, support desks, offices.
	serviceLine = foldedRE(`(?:helpline|hotline|lifeline|infoline|info line|information line|crisis|samaritans|support|helpdesk|service|customer|office|reception|switchboard|line is|call center|call centre|seelsorge|amico|ligne|línea|linea|linha|notruf|emergency|suicid\w*|samob[oó]j\w*|selbstmord\w*|самоубийств\w*|自殺|自杀|자살|telefon zaufania|poison|toxicol\w*|中毒110番|中毒情報センター|中毒控制中心|中毒急救|giftnotruf|giftinformations\w*|antipoison\w*|antiveleni|befrienders|cvv|telefonseelsorge|kindertelefon|childline|988|116|toll[- ]free|freephone|gratis|free ?(?:phone|call|number|line|of charge)|kostenlos|gratuit\w*|numéro vert|número gratuito|горяч\w* лини|телефон доверия|相談|热线|상담|ホットライン|いのちの電話|preventie|prevention|prevención|prävention|prévention|prevenzione|atención al cliente|atencion al cliente|servicio al cliente|atendimento|sac\b|kundenservice|kundendienst|service client|servizio clienti|müşteri hizmetleri|obsługa klienta|служба поддержки|справочн\w*|代表|窓口|客服|客户服务|고객\s?센터|고객\s?상담|ग्राहक सेवा|خدمة العملاء|κέντρο δηλητηριάσεων|γραμμή βοήθειας|εξυπηρέτηση πελατών|τηλεφωνικό κέντρο|tổng đài hỗ trợ|tổng đài chăm sóc|đường dây nóng|chăm sóc khách hàng|layanan pelanggan|layanan darurat|pusat panggilan|klantenservice|vergiftigingen|informatiecentrum|zehir danışma|çağrı merkezi|infolinia|zatruć|kundtjänst|giftinformation|מוקד|קו חם|שירות לקוחות|гаряча лінія|довіри|हेल्पलाइन|sos amitié|sos voz amiga|aasra|vandrevala|teléfono de la esperanza|telefone da esperança|telefono amico|samaritans|lifeline)`)
	// Right after a number, only words that name a service line (toll-free, free to call, anonymous, day and night)
	// make it one: "... office" after it may be a person's.
	serviceAfter = foldedRE(`^\W{0,3}(?:toll[- ]free|freephone|free|helpline|hotline|24/7|24h|anytime|day and night|gratuit\w*|kostenlos|gratis|anonym\w*|anoniem|confidential\w*|vertraulich)\b`)
	machineValue = foldedRE(`^(?:0x[0-9a-f]+|\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?|[0-9a-f:]+::[0-9a-f:]*|\d+(?:\.\d+)?(?:px|em|rem|pt|%|ms|s|gb|mb|kb|tb|mhz|ghz|hz)|[0-9a-f]{7,40})\W*$`)
	// What numbers an id ("build 20240611.7") and what says a number is a phone's, whatever else labels it.
	idSaid   = foldedRE(`\b(?:build|release|version|ticket|order|invoice|id|run|job|batch|nr|no|ref|pesanan|pedido|commande|bestellung|bestelling|resi|siparis|zamowienie)\b|#`)
	phoneCue = foldedRE(`\b(?:call|ring|text|sms|whatsapp|signal|telegram|phone|mobile|cell|handy|hp|wa|celular|móvil|telefon\w*|teléfono|telefone|телефон\w*|điện thoại|nomor hp|numarası|gsm|portable)\b|\b(?:his|her|their|\w+'s|\w+s') (?:number|nummer|numero|número|numéro)\b|\bnummer van\b|\bsố của\b|電話|电话|전화|फोन|هاتف`)
	// A service word said not to be one: "not customer service, her private number".
	serviceDenied = foldedRE(`\b(?:not|no|bukan|no es|não é|nicht|kein\w*|pas|không phải|değil|nie)\s(?:\S+\s)?(?:\S+\s)?$`)
	timeSaid      = foldedRE(`\b(?:timestamp|epoch|unix|millis\w*|nanos\w*|ms|ns|µs|us|seconds|utc)\b`)
	postcodeBR    = foldedRE(`^\d{5}-\d{3}$`)
	// A unit after a number makes it a measure.
	unitAfter = foldedRE(`^\s?(?:m/s|km/h|mph|[kmcµnμ]?m\b|[kmµμn]?s\b|[km]?g\b|[kmgt]i?b\b|px\b|%|°|hz\b|[kmg]hz\b|[km]?w\b|kwh\b|lbs?\b|ft\b|ml\b|rpm\b)`)
	// A card or account number named as a test or example value, in the languages of the web.
	exampleSaid = foldedRE(`\b(?:test(?:ing)?|teste|prueba|testdaten|sandbox|stripe|adyen|paypal|braintree|example|sample|dummy|demo|beispiel\w*|exemple|ejemplo|esempio|exemplo|przykład\w*|örnek|пример\w*|テスト|测试|테스트)\b`)
	// A number said to be a placeholder or made up, in the languages of the web.
	placeholderSaid = foldedRE(`\b(?:placeholder|segnaposto|platzhalter|marcador de posici[oó]n|espace réservé|заглушк\w*|fictional|fictitious|made[- ]up|not a real (?:number|phone)|isn't a real|is not a real|no es real|non è reale|nicht echt|fake number)\b`)
	// Numbers for fiction and examples: North America's 555-01xx, and Ofcom's drama ranges (020 7946 0xxx, 07700 900xxx).
	fictional  = foldedRE(`\b555[-. ]?01\d\d\b|\(?\b\d{3}\)?[-. ]?555[-. ]?01\d\d\b|(?:\+44\s?\(?0?\)?\s?|\b0)20\s?7946\s?0\d{3}\b|(?:\+44\s?\(?0?\)?\s?|\b0)7700\s?900\s?\d{3}\b`)
	ssnSaid    = foldedRE(`\b(?:ssn|social security|social sec|soc sec)\b`)
	isbnLabel  = foldedRE(`\bisbn(?:-1[03])?\W{0,3}(?:\w+\W{1,3}){0,2}$`)                        // "ISBN 978-…", "ISBN numarası 978-…"
	cardGroups = foldedRE(`^\d{4}[ .-]\d{4}[ .-]\d{4}[ .-]\d{1,4}$|^\d{4}[ .-]\d{6}[ .-]\d{5}$`) // as cards print them
	isbnNear   = foldedRE(`\bisbn(?:-1[03])?\b|\b97[89][- ]?\d`)
	testCards  = map[string]bool{"4111111111111111": true, "4242424242424242": true, "5555555555554444": true,
		"4012888888881881": true, "378282246310005": true, "371449635398431": true, "6011111111111117": true,
		"5105105105105100": true, "4000056655665556": true, "2223003122003222": true, "30569309025904": true,
		"6011000990139424": true, "3530111333300000": true, "4000000000000002": true, "4000000000000077": true,
		"4000000000009995": true, "5200828282828210": true, "6200000000000005": true, "3566002020360505": true}
)

// maxPhones is how many different numbers a note may hold before it is read as a list of them.
const maxPhones = 16

// phoneRegions are tried, in order, for a number written without its country code.
var phoneRegions = []string{"US", "GB", "DE", "FR", "ES", "IT", "NL", "BR", "IN", "PL", "TR", "RU", "JP", "KR", "CN", "MX", "AR", "PT", "AU", "CA"}

// personalData finds details that identify or expose a person: email addresses (also spelled "at"/"dot"), phone
// numbers (parsed and validated by libphonenumber's rules, in any country's format, with any separators), payment
// card numbers (Luhn), IBANs (mod 97), national id numbers, street addresses, secrets and keys, and details named
// as what they are. Public contact points stay allowed: reserved example domains, organisations' role addresses,
// helplines and toll-free numbers, fictional 555-01xx numbers, documentation IPs, ISBNs and published test cards.
func personalData(v views) bool { return personalDataIn(v, nil) }

// personalDataIn is personalData, given the words of v.plain when they were read (nil: read here).
func personalDataIn(v views, plain *noteWords) bool {
	t := hexDumps(digitsToASCII(v.plain))
	if plain == nil || t != v.plain {
		nw := readNoteWords(t)
		plain = &nw
	}
	words, numbers := plain.cues, plain.numbers
	wordsOf := t      // the text words were read from
	if numbers >= 2 { // "five five five, one two three four": only with two digits spelled
		t = spelledDigits(t)
	}
	digitCount := 0
	for i := 0; i < len(t); i++ {
		if t[i] >= '0' && t[i] <= '9' {
			digitCount++
		}
	}
	if strings.IndexByte(t, '@') >= 0 { // an address written with its "@", in whatever way
		if strings.Contains(t, "(@)") || strings.Contains(t, "[@]") {
			t = strings.NewReplacer("(@)", "@", "[@]", "@", "(.)", ".", "[.]", ".").Replace(t)
		}
		if strings.Contains(t, " @") || strings.Contains(t, "@ ") {
			t = spacedAt.ReplaceAllStringFunc(t, func(m string) string { return strings.Join(strings.Fields(m), "") })
		}
		for _, m := range emailRE.FindAllStringSubmatchIndex(t, -1) {
			if personalEmail(t[m[2]:m[3]], t[m[4]:m[5]], near(t, m[0], m[1])) {
				return true
			}
		}
	}
	// Each detector runs only where what it looks for can be: most notes spell no address and label no detail.
	if t != wordsOf { // spelled digits or an "@" were written out
		words = cueWords(t)
	}
	if (words["at"] || words["arroba"] || words["bei"] || words["ät"] || words["собака"] || strings.Contains(t, "(at)") || strings.Contains(t, "[at]")) &&
		(words["dot"] || words["punto"] || words["punkt"] || words["point"] || words["ponto"] || words["точка"] || strings.Contains(t, " . ")) {
		for _, m := range emailSpoken.FindAllStringSubmatchIndex(t, -1) {
			if personalEmail(t[m[2]:m[3]], t[m[4]:m[5]]+"."+t[m[6]:m[7]], near(t, m[0], m[1])) {
				return true
			}
		}
	}
	if (secretPrefixes.in(t) ||
		strings.Contains(t, "://") && strings.Contains(t, "@")) &&
		secretRE.MatchString(t) && !placeholder.MatchString(secretRE.FindString(t)) {
		return true
	}
	if labelledWords.anyHit(t) {
		for _, at := range labelledScan.FindAllStringSubmatchIndex(t) {
			whole, value := t[at[0]:at[1]], t[at[2]:at[3]] // the value's group is no option: it is always found
			if serviceLine.MatchString(whole[:len(whole)-len(value)]) {
				continue // "Telefonseelsorge: 0800 111 0 111": the label says it is a helpline
			}
			// "pin: 13", "cell: B12", "address: 10.0.0.5", "mobile: 375px" label no one's detail: a person's has
			// four digits or more, and is no address of a machine or a size.
			if !placeholder.MatchString(value) && len(digits(value)) >= 4 && !machineValue.MatchString(value) || len(value) >= 8 && strings.Contains(whole, "pass") {
				return true
			}
		}
	}
	if digitCount > 0 && streetNamed(t, words) {
		for _, find := range []func(string) [][]int{streetScan.FindAllStringSubmatchIndex, func(t string) [][]int { return streetPre.FindAllStringIndex(t, -1) }} {
			for _, loc := range find(t) {
				// "123 Example Street", "123 Main St, Anytown": the addresses of documentation and test data.
				// "2 features to drive adoption", "3 tests, please close": a street's name holds no such words.
				if !placeholder.MatchString(t[loc[0]:min(len(t), loc[1]+12)]) && !notAStreetName(t[loc[0]:loc[1]]) &&
					!publicPlace(t, loc[0], loc[1]) && !testAddress(t, loc[0], loc[1]) {
					return true
				}
			}
		}
	}
	if digitCount >= 2 && digitBesideLetter(t) && letterDigit.MatchString(t) { // "4l5 867 53o9", "O78-O5-112O": letters standing for digits
		t = letterDigit.ReplaceAllStringFunc(t, func(m string) string {
			return strings.NewReplacer("l", "1", "i", "1", "o", "0").Replace(m)
		})
		digitCount = len(digits(t))
	}
	if digitCount < 7 {
		return false
	}
	// Social security, card and phone numbers are dense runs of digits: most notes have none long enough.
	dense := denseDigits(t)
	for _, loc := range when(dense >= 9, ssnRE.FindAllStringSubmatchIndex)(t, -1) {
		area, group, serial := t[loc[2]:loc[3]], t[loc[4]:loc[5]], t[loc[6]:loc[7]]
		if partOfLongerNumber(t, loc[0], loc[1]) || isbnLabel.MatchString(t[max(0, loc[0]-60):loc[0]]) {
			continue // "978-605-09-1234-5" holds the shape of a social security number
		}
		if !strings.Contains(t[loc[0]:loc[1]], "-") && !ssnSaid.MatchString(t) {
			continue // "800 70 2222" is a phone number unless the note says social security
		}
		if area != "000" && area != "666" && area[0] != '9' && group != "00" && serial != "0000" {
			return true
		}
	}
	for _, loc := range when(dense >= 13, cardRE.FindAllStringIndex)(t, -1) {
		before := t[max(0, loc[0]-60):loc[0]]
		m := t[loc[0]:loc[1]]
		if d := digits(m); luhn(d) && !testCards[d] && !placeholderDigits(d) && !isbn(d) && !exampleSaid.MatchString(near(t, loc[0], loc[1])) && !timeSaid.MatchString(near(t, loc[0], loc[1])) && !isbnLabel.MatchString(before) && (cardGroups.MatchString(m) || !orderNear.MatchString(before)) {
			return true
		}
	}
	for _, loc := range when(ibanStart(t), ibanRE.FindAllStringIndex)(t, -1) {
		if m := t[loc[0]:loc[1]]; ibanValid(strings.ReplaceAll(m, " ", "")) && !exampleSaid.MatchString(near(t, loc[0], loc[1])) {
			return true
		}
	}
	// Each number is read once, however often it is written; a note of more than maxPhones different numbers
	// is a list of them, refused as one, not a reason to parse each in twenty countries' formats.
	read := map[string]bool{}
	for _, loc := range when(dense >= 8, phoneMatches)(t, -1) {
		// Too many digits for one number: numbers written one after another ("07911123456 07922654321").
		spans := [][2]int{{loc[2], loc[3]}}
		if len(digits(t[loc[2]:loc[3]])) > 15 {
			spans = spans[:0]
			for _, f := range fieldSpans(t, loc[2], loc[3]) {
				if len(digits(t[f[0]:f[1]])) >= 8 {
					spans = append(spans, f)
				}
			}
		}
		for _, sp := range spans {
			key := digits(t[sp[0]:sp[1]])
			if read[key] {
				continue
			}
			if len(read) == maxPhones {
				return true
			}
			read[key] = true
			if phoneNumber(t, sp[0], sp[1]) {
				return true
			}
		}
	}
	return false
}

// fieldSpans are where the space-separated fields of t[start:end] are.
func fieldSpans(t string, start, end int) [][2]int {
	var out [][2]int
	for i := start; i < end; {
		for i < end && t[i] == ' ' {
			i++
		}
		j := i
		for j < end && t[j] != ' ' {
			j++
		}
		if j > i {
			out = append(out, [2]int{i, j})
		}
		i = j
	}
	return out
}

// when returns find, or, when cond is false, a finder that finds nothing.
func when[T any](cond bool, find func(string, int) []T) func(string, int) []T {
	if !cond {
		return func(string, int) []T { return nil }
	}
	return find
}

// ibanStart reports two letters and two digits at the start of a word, which every IBAN starts with.
func ibanStart(t string) bool {
	for i := 0; i+3 < len(t); i++ {
		if (i == 0 || !wordByte(t[i-1])) && 'a' <= t[i] && t[i] <= 'z' && 'a' <= t[i+1] && t[i+1] <= 'z' &&
			'0' <= t[i+2] && t[i+2] <= '9' && '0' <= t[i+3] && t[i+3] <= '9' {
			return true
		}
	}
	return false
}

// denseDigits is the most digits in one run of digits and the separators numbers are written with (white space,
// parentheses, dots, hyphens, slashes, middle dots, underscores): a number of n digits needs a run of n.
func denseDigits(t string) int {
	most, n := 0, 0
	for _, r := range t {
		switch {
		case r >= '0' && r <= '9':
			n++
			most = max(most, n)
		case r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '(' || r == ')' || r == '.' || r == '-' || r == '/' || r == '·' || r == '_' || r == '*':
		default:
			n = 0
		}
	}
	return most
}

// digitBesideLetter reports a digit next to an o, l or i, which every match of letterDigit has.
func digitBesideLetter(t string) bool {
	for i := 0; i+1 < len(t); i++ {
		a, b := t[i], t[i+1]
		if a >= '0' && a <= '9' && (b == 'o' || b == 'l' || b == 'i') || b >= '0' && b <= '9' && (a == 'o' || a == 'l' || a == 'i') {
			return true
		}
	}
	return false
}

// hexDumps blanks the runs of hexadecimal groups in a note that says it shows bytes ("hex dump", "xxd", "bytes"):
// "0d 0a 1a 0a 00 00 00 0d 49 48 44 52" is a file header, not a phone number.
func hexDumps(t string) string {
	if !hexCues.in(t) || !hexSaid.MatchString(t) {
		return t
	}
	return hexDumpRun.ReplaceAllStringFunc(t, func(run string) string {
		if !strings.ContainsAny(run, "abcdef") {
			return run // digits only: nothing says they are bytes
		}
		return strings.Repeat(" ", len(run))
	})
}

var (
	hexSaid    = foldedRE(`\b(?:hex\w*|xxd|od -\w+|bytes|byte dump|dump|magic (?:number|bytes)|header)\b`)
	hexDumpRun = foldedRE(`(?:\b[0-9a-f]{2,8}\b[ \t:]+){5,}[0-9a-f]{2,8}\b`)
)

// partOfLongerNumber reports whether t[start:end] continues a number on either side ("978-605-09-1234-5").
func partOfLongerNumber(t string, start, end int) bool {
	joins := func(sep, digit byte) bool {
		return (sep == '-' || sep == '.' || sep == '/') && digit >= '0' && digit <= '9'
	}
	return start >= 2 && joins(t[start-1], t[start-2]) || end+1 < len(t) && joins(t[end], t[end+1])
}

// personalEmail reports whether an address belongs to a person: not a reserved example domain, and not an
// organisation's role address (a role name at a domain that is not a free mail provider).
func personalEmail(local, domain, around string) bool {
	for _, r := range []*strings.Replacer{nil, digitLetters, digitLettersI} {
		l, d := local, domain
		if r != nil { // "supp0rt@examp1e.com" is the role address and the domain it imitates
			l, d = r.Replace(local), r.Replace(domain)
		}
		if reservedDomain.MatchString(d) || roleLocal.MatchString(l) && !freeMail.MatchString(d) {
			return false
		}
	}
	// A person's mailbox is at a mail provider or an internet provider; an address at an organisation's own domain
	// is one it publishes (a maintainer's, a press officer's) unless the note says it is private.
	return freeMail.MatchString(domain) || ispMail.MatchString(domain) || privateSaid.MatchString(around)
}

// digitLetters read digits as the letters they imitate, with 1 as l and, in digitLettersI, as i.
var (
	digitLetters  = strings.NewReplacer("0", "o", "1", "l", "3", "e", "4", "a", "5", "s", "7", "t")
	digitLettersI = strings.NewReplacer("0", "o", "1", "i", "3", "e", "4", "a", "5", "s", "7", "t")
)

// phoneNumber reports whether t[start:end] is a person's phone number: a valid number of some country, written as
// phone numbers are, and not a date, an address of the internet, an ISBN, a fictional number or a service line.
func phoneNumber(t string, start, end int) bool {
	s := t[start:end]
	d := digits(s)
	if len(d) < 8 || len(d) > 15 || fictional.MatchString(s) {
		return false
	}
	if strings.Count(s, ".") == 3 && !strings.ContainsAny(s, " -") { // a dotted quad: an IP address
		return false
	}
	if dateRE.MatchString(s) || decimalRE.MatchString(s) {
		return false // a date
	}
	// What the number is, from how it is written, before what the words around it say (the dearer reading).
	before := t[max(0, start-60):start]
	plus := strings.HasPrefix(strings.TrimLeft(s, "("), "+") && !(start > 0 && (wordByte(t[start-1]) || t[start-1] == '.'))
	if start > 1 && t[start-1] == '+' && (wordByte(t[start-2]) || t[start-2] == '.') {
		return false // "4.12.0+20240611.1732": a build's metadata
	}
	if placeholderDigits(d) || issn(s) || singleDigitGroups(s) || postcodeBR.MatchString(s) || unitAfter.MatchString(t[end:min(len(t), end+8)]) || datedID(s) && idSaid.MatchString(before) && !phoneCue.MatchString(before) {
		return false // "0000 0000": a placeholder; "0395-2649": a serial's ISSN; "01310-200": a CEP; "299 792 458 m/s"; "20240611.7": a build of a day
	}
	if !plus && !strings.ContainsAny(s, " -.()/·_*") && d[0] != '0' && !phoneNear.MatchString(before) {
		return false // a plain count, timestamp or id, not written as a phone number
	}
	if !validPhone(s, plus) {
		return false
	}
	after := t[end:min(len(t), end+40)]
	switch {
	case isbnNear.MatchString(before+s) && isbn(d), isbnLabel.MatchString(before), strings.HasSuffix(strings.TrimSpace(before), "#"):
		return false // an ISBN, or a number named by its "#"
	case serviceLine.MatchString(before) && !serviceDenied.MatchString(before[:serviceLine.FindStringIndex(before)[0]]), serviceAfter.MatchString(after):
		return false // a helpline, a support desk, an office
	case placeholderSaid.MatchString(before + " " + after):
		return false // "il numero 02-1234-5678 nei documenti è un segnaposto"
	case orderNear.MatchString(before) && !phoneCue.MatchString(before):
		return false // an order, invoice or ticket number (and no word says it is a phone's)
	}
	return true
}

// near is the text around t[start:end]: sixty bytes before and after it.
func near(t string, start, end int) string {
	return t[max(0, start-60):start] + " " + t[end:min(len(t), end+60)]
}

// singleDigitGroups reports a list of small numbers counting up ("4 8 15 16 23 42", "2 3 5 7 11 13"): groups of
// one digit beside groups of two, none longer, in order, which is how no country writes a phone number ("2 1 2 55
// 5 0 1 8 7" spells one out, and "06 12 34 56 78" is in pairs).
func singleDigitGroups(s string) bool {
	one, two, last := 0, 0, -1
	for i, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == ';' }) {
		n, err := strconv.Atoi(f)
		switch {
		case err != nil || len(f) > 2 || n < last:
			return false
		case len(f) == 1 && !(i == 0 && strings.HasPrefix(s, "+")):
			one++
		case len(f) == 2:
			two++
		}
		last = n
	}
	return one >= 2 && two >= 1
}

// placeholderDigits reports one digit repeated seven times or more ("0000 0000", a nil UUID): a placeholder, not
// anyone's number. (Digits that count up are not: people write their real numbers as "612 345 678" too.)
func placeholderDigits(d string) bool {
	same := 1
	for i := 1; i < len(d); i++ {
		if d[i] == d[i-1] {
			same++
		} else {
			same = 1
		}
		if same >= 7 {
			return true
		}
	}
	return false
}

// issn reports a serial's ISSN, "0395-2649": four digits, a hyphen, three and a check digit (mod 11, X for ten).
func issn(s string) bool {
	s = strings.TrimSpace(s)
	if len(s) != 9 || s[4] != '-' {
		return false
	}
	sum := 0
	for i, c := range s[:4] + s[5:] {
		switch {
		case c >= '0' && c <= '9':
			sum += (8 - i) * int(c-'0')
		case i == 7 && (c == 'x' || c == 'X'):
			sum += 10
		default:
			return false
		}
	}
	return sum%11 == 0
}

// validPhone reports whether s is a valid phone number of some country (of its own, when it starts with a plus
// sign), and not one of the lines organisations publish (toll-free, shared cost, premium rate).
func validPhone(s string, plus bool) bool {
	key := s
	if plus {
		key = "+" + s
	}
	phoneMemo.Lock()
	v, ok := phoneMemo.m[key]
	phoneMemo.Unlock()
	if ok {
		return v
	}
	v = parsePhone(s, plus)
	phoneMemo.Lock()
	if len(phoneMemo.m) >= 4096 { // bounded: a stranger's numbers do not grow it
		clear(phoneMemo.m)
	}
	phoneMemo.m[strings.Clone(key)] = v // a copy: the number may be read from memory the next note is written in
	phoneMemo.Unlock()
	return v
}

// phoneMemo remembers what parsePhone said of recent numbers: the copies of a note its decoders make, and notes
// posted again, read them again, and each costs a parse in twenty countries' formats.
var phoneMemo = struct {
	sync.Mutex
	m map[string]bool
}{m: map[string]bool{}}

// parsePhone is validPhone without the memo.
func parsePhone(s string, plus bool) bool {
	regions := phoneRegions
	if plus {
		regions = []string{"ZZ"}
	}
	for _, region := range regions {
		n, err := phonenumbers.Parse(s, region)
		if err != nil || !phonenumbers.IsValidNumber(n) {
			continue
		}
		switch phonenumbers.GetNumberType(n) {
		case phonenumbers.TOLL_FREE, phonenumbers.SHARED_COST, phonenumbers.UAN, phonenumbers.PREMIUM_RATE:
			return false // organisations' published lines
		}
		return true
	}
	return false
}

// digitsToASCII writes the decimal digits of every script (Arabic-Indic, Devanagari, fullwidth...) as ASCII.
func digitsToASCII(s string) string {
	if isASCII(s) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r > 0x7f && unicode.IsDigit(r) {
			for z := r; z >= r-9; z-- {
				if !unicode.IsDigit(z - 1) {
					return '0' + (r - z)
				}
			}
		}
		return r
	}, s)
}

var numberWords = map[string]byte{}

func init() {
	for _, set := range [][]string{
		{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"},
		{"oh", "", "", "", "", "", "", "", "", ""},
		{"cero", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve"},
		{"null", "eins", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun"},
		{"zéro", "un", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf"},
		{"zero", "uno", "due", "tre", "quattro", "cinque", "sei", "sette", "otto", "nove"},
		{"zero", "um", "dois", "três", "quatro", "cinco", "seis", "sete", "oito", "nove"},
		{"ноль", "один", "два", "три", "четыре", "пять", "шесть", "семь", "восемь", "девять"},
	} {
		for d, w := range set {
			if w != "" {
				numberWords[w] = byte('0' + d)
			}
		}
	}
	for w := range cues {
		piiWords[w] |= cueWord
	}
	for w := range numberWords {
		piiWords[w] |= numberWord
	}
	for w, f := range turnedWords {
		if f&^turnedFlags != 0 {
			panic("turnedWords sets bits wordFlags keeps for piiWords")
		}
		wordFlags[w] |= f
	}
	for w, f := range piiWords {
		wordFlags[w] |= f
	}
}

// spelledDigits writes runs of spelled digits, alone or mixed with numerals ("five five five one two ...", "two one
// two, 867 five three oh nine"), as digits after the text, when a run holds six digits or more, two of them spelled.
func spelledDigits(s string) string {
	isSep := func(r rune) bool { return unicode.IsSpace(r) || r == ',' || r == '-' }
	numeral := func(f string) bool {
		return len(f) <= 4 && strings.IndexFunc(f, func(r rune) bool { return r < '0' || r > '9' }) < 0
	}
	found, n, spelled := false, 0, 0
	for f := range strings.FieldsFuncSeq(s, isSep) {
		switch _, ok := numberWords[f]; {
		case ok:
			n, spelled = n+1, spelled+1
		case numeral(f):
			n += len(f)
		default:
			n, spelled = 0, 0
		}
		if n >= 6 && spelled >= 2 {
			found = true
			break
		}
	}
	if !found {
		return s
	}
	var b strings.Builder
	b.WriteString(s)
	b.WriteString(" ")
	for f := range strings.FieldsFuncSeq(s, isSep) {
		if d, ok := numberWords[f]; ok {
			b.WriteByte(d)
		} else if numeral(f) {
			b.WriteString(f)
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

func digits(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
}

// isbn reports whether d is an ISBN-13 (978/979 with its check digit) or an ISBN-10.
func isbn(d string) bool {
	switch len(d) {
	case 13:
		if !strings.HasPrefix(d, "978") && !strings.HasPrefix(d, "979") {
			return false
		}
		sum := 0
		for i := range 13 {
			n := int(d[i] - '0')
			if i%2 == 1 {
				n *= 3
			}
			sum += n
		}
		return sum%10 == 0
	case 10:
		sum := 0
		for i := range 10 {
			sum += (10 - i) * int(d[i]-'0')
		}
		return sum%11 == 0
	}
	return false
}

// luhn reports whether a 13 to 19 digit number passes the Luhn check of payment cards.
func luhn(d string) bool {
	if len(d) < 13 || len(d) > 19 {
		return false
	}
	sum := 0
	for i := range len(d) {
		n := int(d[len(d)-1-i] - '0')
		if i%2 == 1 {
			if n *= 2; n > 9 {
				n -= 9
			}
		}
		sum += n
	}
	return sum%10 == 0
}

// ibanValid checks an IBAN's length and its mod-97 checksum.
func ibanValid(s string) bool {
	s = strings.ToUpper(s)
	if len(s) < 15 || len(s) > 34 {
		return false
	}
	var b strings.Builder
	for _, r := range s[4:] + s[:4] {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case r >= 'A' && r <= 'Z':
			b.WriteString(big.NewInt(int64(r - 'A' + 10)).String())
		default:
			return false
		}
	}
	n, ok := new(big.Int).SetString(b.String(), 10)
	return ok && new(big.Int).Mod(n, big.NewInt(97)).Int64() == 1
}

// The words that the secret and hex-dump detectors look for first, in one pass each.
var (
	secretPrefixes = newAnyOf("sk-", "sk_live", "rk_live", "ghp_", "gho_", "github_pat_", "xox", "akia", "aiza", "glpat-", "hf_", "-----begin")
	hexCues        = newAnyOf("hex", "xxd", "od -", "bytes", "dump", "magic", "header")
)

// anyOf is a set of strings looked for in a text in one pass (where containsAny makes one per string): at each byte
// that one of them starts with, the ones that start with it are compared.
type anyOf struct {
	starts  [4]uint64  // a bit per byte that a string starts with
	byFirst [][]string // the strings, by the index of their first byte among those
	index   [256]uint8
}

func newAnyOf(subs ...string) *anyOf {
	a := &anyOf{byFirst: [][]string{nil}}
	for _, sub := range subs {
		c := sub[0]
		if a.index[c] == 0 {
			a.starts[c>>6] |= 1 << (c & 63)
			a.index[c] = uint8(len(a.byFirst))
			a.byFirst = append(a.byFirst, nil)
		}
		a.byFirst[a.index[c]] = append(a.byFirst[a.index[c]], sub)
	}
	return a
}

// in reports whether s contains one of the strings.
func (a *anyOf) in(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; a.starts[c>>6]&(1<<(c&63)) != 0 {
			for _, sub := range a.byFirst[a.index[c]] {
				if strings.HasPrefix(s[i:], sub) {
					return true
				}
			}
		}
	}
	return false
}

// foldedRE compiles a pattern of the personal-data detectors, which read the plain text, its letters folded as the
// text's are: "número" is "numero" there, and a word of another language written with its accents in a pattern
// would never match. Runs of other letters are folded whole, so that marks stay on the letters they belong to.
func foldedRE(pattern string) *regexp.Regexp {
	var b strings.Builder
	run := -1
	for i, r := range pattern {
		switch {
		case r >= 0x80 && run < 0:
			run = i
		case r < 0x80 && run >= 0:
			b.WriteString(fold(pattern[run:i], true))
			run = -1
		}
		if r < 0x80 {
			b.WriteRune(r)
		}
	}
	if run >= 0 {
		b.WriteString(fold(pattern[run:], true))
	}
	return regexp.MustCompile(b.String())
}

// datedID reports an id made of a date written as one number and a count ("20240611.7", "20240511-0093"): how
// builds, orders and tickets of a day are numbered, where no country's phone numbers begin with a year.
func datedID(s string) bool {
	s = strings.TrimLeft(s, "(")
	if len(s) < 10 || !(s[8] == '.' || s[8] == '-' || s[8] == '_') || strings.ContainsAny(s[9:], " .-_/()") {
		return false
	}
	year, err1 := strconv.Atoi(s[:4])
	month, err2 := strconv.Atoi(s[4:6])
	day, err3 := strconv.Atoi(s[6:8])
	return err1 == nil && err2 == nil && err3 == nil && 1990 <= year && year <= 2039 && 1 <= month && month <= 12 && 1 <= day && day <= 31 &&
		len(s)-9 <= 6 && len(digits(s[9:])) == len(s)-9
}

// phoneMatches is phoneRE.FindAllStringSubmatchIndex(t, n) reading only the runs of digits and the characters a
// number is written with (and a character either side, which the expression reads as a boundary), not the whole
// note: most of a note is words. Runs a character apart are read as one, as the expression reads them.
func phoneMatches(t string, n int) [][]int {
	var out [][]int
	numeric := func(i int) int { // the length of the number's character at i, or 0
		switch c := t[i]; {
		case '0' <= c && c <= '9', c == ' ', c == '\t', c == '\n', c == '\r', c == '\f', c == '(', c == ')', c == '.', c == '-', c == '/', c == '_', c == '*', c == '+':
			return 1
		case c == 0xc2 && i+1 < len(t) && t[i+1] == 0xb7: // the middle dot
			return 2
		}
		return 0
	}
	for i := 0; i < len(t) && (n < 0 || len(out) < n); {
		if t[i] < '0' || t[i] > '9' {
			i++
			continue
		}
		lo, hi := i, i // a run around this digit, joined with the runs one character away
		for lo > 0 && numeric(lo-1) > 0 {
			lo--
		}
		for hi < len(t) {
			if k := numeric(hi); k > 0 {
				hi += k
				continue
			}
			_, size := utf8.DecodeRuneInString(t[hi:])
			if next := hi + size; next < len(t) && numeric(next) > 0 {
				hi = next
				continue
			}
			break
		}
		// A character either side: the boundaries the expression reads.
		if lo > 0 {
			_, size := utf8.DecodeLastRuneInString(t[:lo])
			lo -= size
		}
		if hi < len(t) {
			_, size := utf8.DecodeRuneInString(t[hi:])
			hi += size
		}
		for _, m := range phoneRE.FindAllStringSubmatchIndex(t[lo:hi], -1) {
			for j := range m {
				if m[j] >= 0 {
					m[j] += lo
				}
			}
			out = append(out, m)
		}
		i = hi
	}
	if n >= 0 && len(out) > n {
		out = out[:n]
	}
	return out
}
