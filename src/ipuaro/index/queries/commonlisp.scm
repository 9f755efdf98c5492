; Common Lisp, read by ipuaro.index.parsers._tags (captures explained there). `defun`,
; `defmacro`, `defgeneric` and `defmethod` are functions (a generic function and its methods
; recorded one by one); `defclass`/`defstruct` are classes.
(list_lit (defun (defun_header function_name: (sym_lit) @name))) @definition.function
((list_lit . (sym_lit) @_keyword . (sym_lit) @name)
  (#any-of? @_keyword "defclass" "defstruct" "define-condition")) @definition.class
((list_lit . (sym_lit) @_keyword . (list_lit . (sym_lit) @name))
  (#eq? @_keyword "defstruct")) @definition.class

((list_lit . (sym_lit) @_keyword . [(kwd_lit (kwd_symbol) @import) (sym_lit) @import (str_lit) @import])
  (#any-of? @_keyword "require" "ql:quickload" "asdf:load-system"))
((list_lit . (sym_lit) @_keyword . (str_lit) @import.internal)
  (#any-of? @_keyword "load" "compile-file"))

(sym_lit) @reference
((list_lit . (sym_lit) @call)
  (#not-match? @call "^(def[a-z-]*|in-package|let\\*?|setf|setq|if|when|unless|cond|progn|lambda|loop|quote|function|declare)$"))
[(comment) (block_comment)] @comment
