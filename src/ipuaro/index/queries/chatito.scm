; Chatito (chatbot training data), read by ipuaro.index.parsers._tags (captures explained
; there). A data file: intents `%[…]`, slots `@[…]` and aliases `~[…]` are the definitions,
; each a `const` symbol and one of the file's keys spanning its sentences; `@[slot]` and
; `~[alias]` uses are references; `import` names another file of the project.
(intent_def (intent) @name) @definition.constant
(slot_def (slot) @name) @definition.constant
(alias_def (alias) @name) @definition.constant

(import (file) @import.internal)

(slot_ref (slot) @reference)
(alias_ref (alias) @reference)
(comment) @comment
