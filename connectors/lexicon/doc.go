// Package lexicon is an embedded extract of WordNet 3.0 for word handling
// without a network or a WordNet installation: base forms (lemmas), parts of
// speech with how common each reading is, related words (synonyms and
// derivationally related forms) and broader words (hypernyms).
//
// # Words
//
// A word is one or more English words in any letter case; runs of spaces
// and underscores separate words, as WordNet's "power_station" is the
// lexicon's "power station". Only ASCII letters, hyphens and apostrophes are
// recognised: anything else (digits, accented letters, punctuation, an empty
// string) is an unknown word, for which every method returns its zero value.
// Splitting identifiers such as "isOperational" or "op_status_cd" into words
// is the caller's job.
//
// # Lemmas
//
// Lemmas follows WordNet's morphy: for each part of speech, an irregular
// form is looked up in WordNet's exception lists (noun.exc, verb.exc,
// adj.exc, adv.exc; "ran" → "run", "children" → "child"); otherwise the
// regular detachment rules are applied once ("stations" → "station",
// "countries" → "country", "operating" → "operate") and only results that
// WordNet lists in that part of speech are kept. A form that is itself a
// lemma is kept too ("operating" is also an adjective). A phrase that has no
// lemma as a whole is lemmatised word by word ("ran into" → "run into").
//
// One departure from morphy: a noun or adjective reading that only a
// detachment rule found is dropped as an accident of spelling when another
// reading of the word, of a lemma WordNet does not relate to it, is at least
// five times as frequent in SemCor: "customer" is not read as "more custom",
// "number" as "more numb", "was" as the plural of "wa" or "serves" as the
// plural of "serf". Verb readings are kept ("rates" still reaches the verb
// "rat"), as are readings from the exception lists.
//
// # Parts of speech and frequency
//
// Each (lemma, part of speech) reading carries WordNet's number of senses
// (synsets), the number of those senses that are tagged in the SemCor
// concordance (the index files' tagsense_cnt), and the number of tagged
// occurrences in SemCor summed over the senses (from cntlist.rev). The
// occurrence count is the frequency signal: tagsense_cnt counts senses, not
// uses. The concordance is small (cntlist.rev counts about 259,000 tagged
// occurrences), so 85% of the lemmas have none; Share falls back on sense
// counts for a word with no occurrences, and Commonness adds them.
//
// # Related words
//
// Related lemmas were computed when the data was generated, for each lemma:
//   - the other members of its first five synsets in each part of speech
//     (synonyms), leaving out synsets of named instances;
//   - for an adjective satellite among those, the members of the head
//     synset it is similar to;
//   - from every sense, the targets of WordNet's lexical derivation ('+'),
//     pertainym ('\') and participle ('<') pointers, in both directions
//     ("pay" ↔ "payment", "operate" ↔ "operation", "operational" ↔
//     "operation");
//   - in both directions, the words of the definitions of its first two
//     senses that share its stem up to a common derivational suffix. WordNet
//     3.0 has no derivation pointer between "weigh" and "weight", but
//     defines "weigh" as "have a certain weight".
//
// # Broader words
//
// Broader reports whether one word is a kind of another: the lemmas of the
// hypernyms of a noun's first two senses, and theirs, up to four levels,
// computed when the data was generated ("truck" → motor vehicle →
// self-propelled vehicle → wheeled vehicle → vehicle; "chauffeur" →
// driver). Only upwards: a vehicle is not a kind of truck.
//
// Related words are not closed transitively. "operating" reaches
// "operational" because WordNet puts both in one adjective synset ("being in
// effect or operation") and "operate" reaches "operation"; RelatedTo looks
// at the lemmas of both words, so it matches "operating" with "operation"
// and "Operational".
//
// # Data and licence
//
// The embedded lexicon.bin.gz is generated from Debian's wordnet-base
// (WordNet 3.0) by internal/gen; its layout is described in
// internal/format. Lemmas with characters other than letters, hyphens,
// apostrophes and word separators (digits, dots, slashes) are left out.
// WordNet is distributed under the WordNet 3.0 licence by Princeton
// University; its text is in WORDNET-LICENSE beside this file and must
// accompany copies of the data.
//
//	WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved.
//
// To regenerate the data (apt-get install wordnet-base), from the module
// root run
//
//	go run ./connectors/lexicon/internal/gen -wordnet /usr/share/wordnet -out connectors/lexicon/lexicon.bin.gz
//
// or go generate in this directory.
//
//go:generate go run ./internal/gen -wordnet /usr/share/wordnet -out lexicon.bin.gz
package lexicon
