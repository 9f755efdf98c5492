"""Plan → apply: the one-JSON contract of plan mode (schema, extraction, validation, one repair
retry), the model's context requests and the context diet, the actions' checks, the plan checked
against the index, and applying it as one transaction. Types live in ``ipuaro.domain.plan``."""
