; Zig, read by ipuaro.index.parsers._tags (captures explained there). `const T = struct {…}`
; is a type; functions declared in its body are its methods.
(function_declaration name: (identifier) @name) @definition.function
(variable_declaration (identifier) @name [(struct_declaration) (union_declaration) (opaque_declaration)]) @definition.class
(variable_declaration (identifier) @name (enum_declaration)) @definition.class

((variable_declaration (identifier) @import.name
   (builtin_function (builtin_identifier) @_builtin (arguments (string (string_content) @import.internal))))
  (#eq? @_builtin "@import") (#match? @import.internal "\\.zig$"))
((variable_declaration (identifier) @import.name
   (builtin_function (builtin_identifier) @_builtin (arguments (string (string_content) @import))))
  (#eq? @_builtin "@import") (#not-match? @import "\\.zig$"))

(identifier) @reference
(call_expression function: (identifier) @call)
(call_expression function: (field_expression member: (identifier) @call))
(comment) @comment
(block) @block
