"""teachmem: how LLM applications remember, built from scratch.

The strategies learners build live in ``teachmem.memory``; the rest of the
package is lab equipment. Start with notebooks/00_start_here.ipynb.
"""
from teachmem.clock import EPOCH, ManualClock
from teachmem.memory.buffer import ConversationBuffer
from teachmem.memory.message import ROLES, Memory, Message
from teachmem.memory.token_window import TokenBudgetWindow
from teachmem.memory.window import SlidingWindowMemory
from teachmem.scenarios import Scenario, fact_in_text, list_scenarios, load_scenario
from teachmem.tokens import chars_estimate, estimate_tokens, from_tokenizer

__version__ = "0.1.0"
