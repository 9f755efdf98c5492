; HCL / Terraform, read by ipuaro.index.parsers._tags (captures explained there). A labelled
; block (`resource "aws_instance" "web"`, `variable "region"`) is recorded as a class named by
; its last label; a module's `source` is an import, internal when it is a relative path.
(block (string_lit (template_literal) @name) . (block_start)) @definition.class

((block (identifier) @_module
   (body (attribute (identifier) @_source
     (expression (literal_value (string_lit (template_literal) @import.internal))))))
  (#eq? @_module "module") (#eq? @_source "source") (#match? @import.internal "^\\.\\.?/"))
((block (identifier) @_module
   (body (attribute (identifier) @_source
     (expression (literal_value (string_lit (template_literal) @import))))))
  (#eq? @_module "module") (#eq? @_source "source") (#not-match? @import "^\\.\\.?/"))

(identifier) @reference
(function_call (identifier) @call)
(comment) @comment
(body) @block
