"""The built-in tools, one per module; ``ipuaro.tools.registry.builtin_tools`` lists them."""
