"""Lab equipment: scenarios, replay, evaluation, persistence and governance. Depends on teachmem.memory, never the reverse."""
