"""Small primitives the memory strategies share: words, tokens, clock, validation, embedders,
vectors."""
