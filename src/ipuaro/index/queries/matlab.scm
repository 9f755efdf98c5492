; MATLAB, read by ipuaro.index.parsers._tags (captures explained there). A classdef is a
; class with the functions of its methods blocks; local and nested functions are recorded.
(function_definition name: (identifier) @name) @definition.function
(class_definition name: (identifier) @name) @definition.class

(identifier) @reference
(function_call name: (identifier) @call)
(command (command_name) @call)
(comment) @comment
(block) @block
