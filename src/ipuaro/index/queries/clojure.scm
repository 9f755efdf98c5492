; Clojure, read by ipuaro.index.parsers._tags (captures explained there). `ns` is a namespace;
; `defn`/`defn-`/`defmacro`/`defmulti`/`defmethod` are functions (each `defmethod` on its
; own); `defprotocol`/`definterface` are interfaces and `defrecord`/`deftype` classes, with
; the method forms in their bodies as methods; `extend-type T` adds its methods to T.
((list_lit . (sym_lit name: (sym_name) @_form) . (sym_lit name: (sym_name) @name))
  (#eq? @_form "ns")) @definition.module
((list_lit . (sym_lit name: (sym_name) @_form) . (sym_lit name: (sym_name) @name))
  (#any-of? @_form "defn" "defn-" "defmacro" "defmulti" "defmethod")) @definition.function
((list_lit . (sym_lit name: (sym_name) @_form) . (sym_lit name: (sym_name) @name))
  (#any-of? @_form "defprotocol" "definterface")) @definition.interface
((list_lit . (sym_lit name: (sym_name) @_form) . (sym_lit name: (sym_name) @name))
  (#any-of? @_form "defrecord" "deftype")) @definition.class
((list_lit . (sym_lit name: (sym_name) @_form) . (sym_lit name: (sym_name) @name))
  (#eq? @_form "extend-type")) @definition.container
((list_lit
  . (sym_lit name: (sym_name) @_form)
  (list_lit . (sym_lit name: (sym_name) @name) . [(vec_lit) (str_lit)]) @definition.function)
  (#any-of? @_form "defprotocol" "definterface" "defrecord" "deftype" "extend-type"))

((list_lit . (kwd_lit name: (kwd_name) @_key) (vec_lit . (sym_lit name: (sym_name) @import)))
  (#any-of? @_key "require" "use"))
((list_lit . (kwd_lit name: (kwd_name) @_key) (sym_lit name: (sym_name) @import))
  (#any-of? @_key "require" "use"))
((list_lit . (kwd_lit name: (kwd_name) @_key) (list_lit . (sym_lit name: (sym_name) @import)))
  (#eq? @_key "import"))

(sym_name) @reference
; a package in `(:import (java.time Instant))` is not a call
((list_lit . (sym_lit name: (sym_name) @call))
  (#not-match? @call "^(ns|def|defn-?|defmacro|defmulti|defmethod|defprotocol|definterface|defrecord|deftype|extend-type|fn|let|if|do|when|cond|loop|recur)$")
  (#not-match? @call "^[a-z][a-z0-9_-]*([.][A-Za-z0-9_-]+)+$"))
(comment) @comment
