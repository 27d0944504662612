"""What the agent's model reads: the persona, the instructions, the pressure warning and the tools.

The tools are named as Letta names them; ``tool_schemas()`` turns the table into the function
schemas an OpenAI-compatible API takes as ``tools``. ``teachmem.memory.agent`` runs them.

Taught in notebooks/11_memory_as_tools.ipynb.
"""
from __future__ import annotations

__all__ = ["PERSONA", "INSTRUCTIONS", "WARNING", "TOOLS", "tool_schemas"]

PERSONA = ("I am a helpful assistant. I keep what the user tells me about themselves and their "
           "project.")
INSTRUCTIONS = (
    "You manage your own memory with tools. Core memory below is always in your context: keep "
    "what the user states about themselves and their project in the human block, one "
    "'attribute: value' line each (core_memory_append), and correct a line when it changes "
    "(core_memory_replace). Messages that leave the context go to recall storage "
    "(conversation_search); keep longer notes in archival storage (archival_memory_insert, "
    "archival_memory_search). Search before you say you do not know.")
WARNING = ("Memory pressure: the context is {share:.0%} full. The oldest messages will soon be "
           "evicted to recall storage; save what matters to core or archival memory now.")

# The tools as the model sees them: name -> (what it does, {argument: what it is}).
BLOCK = "the block: persona or human"
SEARCH = {"query": "what to look for", "page": "0, 1, …"}
TOOLS = {
    "core_memory_append": ("Add a line to a core memory block (always in context).",
                           {"label": BLOCK, "content": "the line to add"}),
    "core_memory_replace": ("Replace text in a core memory block; an empty new text deletes it.",
                            {"label": BLOCK, "old": "the exact text to replace",
                             "new": "the text to put in its place"}),
    "archival_memory_insert": ("Save a passage to archival storage (outside the context).",
                               {"content": "the passage to save"}),
    "archival_memory_search": ("Search archival storage.", SEARCH),
    "conversation_search": ("Search past messages in recall storage.", SEARCH),
}


def tool_schemas() -> list[dict]:
    """The tools as function-calling JSON schemas, the list an OpenAI-compatible API takes as
    ``tools``."""
    schemas = []
    for name, (what, args) in TOOLS.items():
        properties = {}
        for argument, meaning in args.items():
            kind = "integer" if argument == "page" else "string"
            properties[argument] = {"type": kind, "description": meaning}
        required = [argument for argument in args if argument != "page"]
        parameters = {"type": "object", "required": required, "properties": properties}
        function = {"name": name, "description": what, "parameters": parameters}
        schemas.append({"type": "function", "function": function})
    return schemas
