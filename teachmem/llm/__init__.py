"""Language models for memory work: one small protocol, an offline stand-in, a real adapter.

Memory strategies need a model for four jobs: summarise a conversation,
extract facts as JSON, score how important a message is, and tell whether a
new fact contradicts an old one. The task functions (:func:`summarize`,
:func:`extract_triples`, :func:`score_importance`, :func:`find_contradiction`)
write the prompt, call ``llm.complete(messages)`` and parse the reply, so the
same code runs with any model that speaks chat messages. Reflection and memory of
experience add three more (:func:`write_insights`, :func:`rate_episodes`,
:func:`rewrite_instructions`, notebook 12):

* :class:`OfflineLLM` — the default everywhere. Deterministic, no network, no
  key. It reads the very prompts a real model would get, recognises which job
  it is asked to do, and does that job with readable rules.
* :class:`OpenAICompatibleLLM` — any ``/v1/chat/completions`` endpoint
  (OpenAI, Ollama, llama.cpp server, vLLM), with the standard library only.

Both also answer ``complete_with_tools(messages, tools)`` with an assistant
message and its tool calls, so a model can manage its own memory
(``teachmem.memory.agent.MemoryAgent``).

Every model counts its calls and tokens in ``llm.usage``, so a notebook can
show what a memory strategy costs in model calls.

The package, one idea a module:

=================  ==========================================================
``protocol``       the ``LLM`` protocol, ``Usage``, ``Triple``, the errors
``tasks``          the four prompts and task functions, reading the replies
``offline``        ``OfflineLLM``: which job is asked, then the rules
``openai``         ``OpenAICompatibleLLM``: the HTTP adapter
``clauses``        lines, sentences, clauses
``phrases``        reading a value after a trigger
``lexicon``        the technology lexicon and the word lists
``patterns``       the triggers of the rules
``certainty``      decision cues, hedges, questions, negation
``rules``          the personal rules, as a table (``PERSONAL_RULES``)
``project_rules``  technologies, budgets, deadlines
``facts``          the reading order: ``rule_triples``, ``extract_facts``
``importance``     ``importance_rules``
``summaries``      ``summarize_rules``
``memory_policy``  which memory tools to call (``complete_with_tools``)
``experience``     reflection and experience: insights, similar episodes, instructions
``experience_rules``  the offline stand-in's rules for those three jobs
=================  ==========================================================

Taught in notebooks/03_summary_memory.ipynb and notebooks/04_entity_memory.ipynb.
"""
from teachmem.llm.protocol import (LLM, ToolLLM, AuthenticationError, ExtractionError, ExtractionWarning, LLMError,
                                   LLMTimeoutError, MalformedResponseError, Triple, Usage)
from teachmem.llm.tasks import (CONTRADICTION_PROMPT, EXTRACTION_PROMPT, IMPORTANCE_PROMPT, SUMMARY_PROMPT,
                                extract_triples, find_contradiction, score_importance, summarize, tool_reply)
from teachmem.llm.experience import (EPISODE_PROMPT, INSIGHT_PROMPT, REWRITE_PROMPT, rate_episodes,
                                     rewrite_instructions, write_insights)
from teachmem.llm.clauses import split_sentences
from teachmem.llm.lexicon import tech_lexicon
from teachmem.llm.facts import extract_facts, rule_triples
from teachmem.llm.importance import importance_rules
from teachmem.llm.summaries import summarize_rules
from teachmem.llm.offline import OfflineLLM
from teachmem.llm.openai import OpenAICompatibleLLM

__all__ = ["Usage", "LLM", "ToolLLM", "OfflineLLM", "OpenAICompatibleLLM", "Triple",
           "LLMError", "AuthenticationError", "LLMTimeoutError", "MalformedResponseError",
           "ExtractionError", "ExtractionWarning",
           "SUMMARY_PROMPT", "EXTRACTION_PROMPT", "IMPORTANCE_PROMPT", "CONTRADICTION_PROMPT",
           "summarize", "extract_triples", "score_importance", "find_contradiction", "tool_reply",
           "rule_triples", "extract_facts", "split_sentences", "importance_rules", "summarize_rules",
           "tech_lexicon", "INSIGHT_PROMPT", "EPISODE_PROMPT", "REWRITE_PROMPT", "write_insights",
           "rate_episodes", "rewrite_instructions"]
