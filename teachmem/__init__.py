"""teachmem: how LLM applications remember, built from scratch.

The strategies learners build live in ``teachmem.memory``; the rest of the
package is lab equipment. Start with notebooks/00_start_here.ipynb.
"""
from teachmem.core.change import Change
from teachmem.core.clock import EPOCH, ManualClock
from teachmem.memory.buffer import ConversationBuffer
from teachmem.memory.message import ROLES, Message
from teachmem.memory.protocol import Memory
from teachmem.memory.token_window import TokenBudgetWindow
from teachmem.memory.window import SlidingWindowMemory
from teachmem.lab.scenarios import Scenario, fact_in_text, list_scenarios, load_scenario
from teachmem.core.tokens import chars_estimate, estimate_tokens, from_tokenizer

__version__ = "0.1.0"

# Language models and fact extraction (notebooks 03 and 04).
from teachmem.llm import (LLM, AuthenticationError, ExtractionError, LLMError, OfflineLLM, OpenAICompatibleLLM,
                          Triple, Usage, extract_facts, extract_triples, find_contradiction, rule_triples,
                          score_importance, summarize)

# Semantic long-term memory and hand-built embeddings (notebook 05).
from teachmem.core.embed import (BagOfWordsEmbedder, Embedder, RandomEmbedder, SentenceTransformerEmbedder,
                            SubwordEmbedder)
from teachmem.memory.semantic import SemanticMemoryStore
# all-MiniLM-L6-v2 in numpy; importing it registers the embedder name "minilm" (weights load on first use).
from teachmem.core.minilm import MiniLMEmbedder
from teachmem.core.bm25 import BM25Index

# Summary and entity memory (notebooks 03 and 04).
from teachmem.memory.entity import EntityMemory
from teachmem.memory.summary import SummaryMemory

# The hybrid manager (notebook 06); the comparison lives in teachmem.lab.replay (notebook 07).
from teachmem.memory.hybrid import HybridMemoryManager

# Memory as tools: the model manages its own memory (notebook 11).
from teachmem.memory.agent import MemoryAgent

# Reflection and memory of experience: insights, episodes, instructions (notebook 12).
from teachmem.memory.reflection import ReflectiveMemory
from teachmem.memory.episodic import Episode, EpisodicMemory
from teachmem.memory.procedural import ProceduralMemory

# Evaluation: the scoreboard and the LoCoMo benchmark (notebook 08). The scoring function itself is
# ``teachmem.evaluate.evaluate``; it is not re-exported here, where it would hide the module of that name.
from teachmem.lab.evaluation.scenario_scores import Scoreboard, load_scenarios
from teachmem.lab.evaluation.locomo import LOCOMO_SAMPLE, evidence_recall, load_locomo

# Persistence, users and governance (notebook 09).
from teachmem.lab.storage.memory_db import MemoryDB, MemoryNotFound, SchemaVersionError, register_strategy
from teachmem.lab.governance import (Audit, Observation, RetentionPolicy, apply_fresh, apply_retention, find_pii,
                                 forget, provenance, reconcile)

# The same semantic memory on PostgreSQL + pgvector, and a throwaway server started from a wheel.
from teachmem.lab.storage.postgres import LocalPostgres, local_postgres
from teachmem.lab.storage.pg_store import PgMemoryStore
