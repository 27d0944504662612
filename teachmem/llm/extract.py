"""Rules that pull facts, summaries and importance out of chat text, without a model.

This is the engine inside :class:`teachmem.llm.OfflineLLM` and the default
extractor of the entity memory. It is deliberately a set of small, readable
rules, so you can see exactly why a sentence became a fact and why another did
not. A real model does the same jobs far more flexibly; these rules are there
so every notebook runs offline, deterministically, with no key.

Taught in notebooks/04_entity_memory.ipynb (facts) and
notebooks/03_summary_memory.ipynb (summaries).

How a message is read
---------------------
1. Split into lines (a line may start with ``user:`` or ``assistant:``), then
   sentences, then clauses: "My name is Dana and I live in Lisbon" becomes two
   clauses, so each fact stays atomic (seed 004's idea).
2. Each clause is matched against a few families of patterns: names, places,
   employers, diets, allergies, likes, preferences, favourites, budgets,
   dates, and a lexicon of technologies. Personal patterns only listen to the
   user (an assistant saying "I'm happy to help" is not a name).
3. Every fact gets a confidence: a clear decision ("let's use MySQL") is high,
   a bare mention ("MySQL is popular") is lower, a question or a hedge
   ("maybe MongoDB?") is low. Callers keep facts above a threshold (0.7).

Every regular expression here matches a bounded number of words, so even a
100,000-character message is read in linear time.
"""
from __future__ import annotations

import itertools
import re
from collections import Counter
from typing import NamedTuple

from teachmem.core.validate import require_fraction, require_positive_int, require_text

__all__ = ["Triple", "rule_triples", "extract_facts", "summarize_rules", "importance_rules",
           "split_sentences", "tech_lexicon"]


class Triple(NamedTuple):
    """One fact: ``(entity, attribute, value, confidence)``, e.g. ``("Project", "database", "MySQL", 0.9)``.

    Taught in notebooks/04_entity_memory.ipynb.
    """

    entity: str
    attribute: str
    value: str
    confidence: float = 1.0


class _Found(NamedTuple):
    triple: Triple
    phrase: str     # seed 004's atomic fact, e.g. "lives in lisbon"
    rank: int       # seed 004 lists facts by kind, then by position
    pos: int


# ---------------------------------------------------------------------------
# Reading the text: lines -> sentences -> clauses
# ---------------------------------------------------------------------------

_ROLE_PREFIX = re.compile(r"^\s*(user|assistant|system|tool|human|ai)\s*:\s*", re.I)
_ROLE_ALIAS = {"human": "user", "ai": "assistant"}
_SENTENCE_END = re.compile(r"(?<=[.!?]) ")
_SUBJECT = (r"(?:i|i'm|i've|i'd|i'll|im|my|we|we're|we'll|we've|we'd|let's|lets|our|the|it|it's|"
            r"you|you're|he|she|they|this|there|user|actually|also|then|now|maybe)\b")
# Where one clause ends and the next begins: a semicolon or spaced dash always;
# reasons and contrasts always ("because MongoDB lacks joins" is not a choice);
# "and"/"so"/"or" and commas only when a new subject follows.
_CLAUSE_BREAK = re.compile(
    r"\s*;\s*|\s+[-–—]+\s+"
    r"|,?\s+(?:because|since|cause|but|though|although|whereas|unless|except that|so that|given that)\s+"
    r"|,?\s+(?:and|so|or|plus|yet|while)\s+(?=" + _SUBJECT + ")"
    r"|,\s+(?=" + _SUBJECT + ")", re.I)


_SENTENCE = re.compile(r" ?([^\r\n]+?[.!?](?=\s|$)|[^\r\n]+)")
# "St. Mary's", "Dr. Lee", "e.g. this": a period that does not end a sentence.
# It is swapped for a look-alike character of the same length, so positions stay put.
_ABBREVIATION = re.compile(r"\b(St|Dr|Mr|Mrs|Ms|Jr|Sr|Inc|Ltd|Co|Corp|Mt|Prof|vs|etc|approx|No|e\.g|i\.e)\.(?=\s)")
_DOT = "\u2024"


_SPACES = re.compile(r"[^\S\r\n]+")


def _normalise(text: str) -> str:
    """Straight apostrophes, one space between words, abbreviations protected.

    Collapsing runs of spaces first is what keeps every later pattern linear:
    no pattern ever has to back off through a thousand spaces.
    """
    text = _SPACES.sub(" ", text.replace("’", "'").replace("‘", "'"))
    return _ABBREVIATION.sub(lambda m: m.group(1) + _DOT, text)


def split_sentences(text: str) -> list[str]:
    """Split text into sentences at ``.``, ``!``, ``?`` (before a space) and line breaks.

    "Node.js", "dana@example.com" and "St. Mary's" stay whole.
    Taught in notebooks/03_summary_memory.ipynb.
    """
    parts = (part.strip() for line in _normalise(text).splitlines() for part in _SENTENCE_END.split(line))
    return [part.replace(_DOT, ".") for part in parts if part]


def _lines(text: str):
    """Yield ``(role, line, offset)``; a line without a role prefix keeps the previous role."""
    role, offset = None, 0
    for line in text.splitlines(keepends=True):
        match = _ROLE_PREFIX.match(line)
        if match:
            role = match.group(1).lower()
            role = _ROLE_ALIAS.get(role, role)
            yield role, line[match.end():], offset + match.end()
        else:
            yield role, line, offset
        offset += len(line)


def _clauses(sentence: str):
    """Yield ``(clause, offset)`` for each clause of a sentence."""
    start = 0
    for brk in _CLAUSE_BREAK.finditer(sentence):
        if brk.start() > start:
            yield sentence[start:brk.start()], start
        start = brk.end()
    if start < len(sentence):
        yield sentence[start:], start


# ---------------------------------------------------------------------------
# Small word helpers
# ---------------------------------------------------------------------------

_EDGE_PUNCT = "\"'“”‘’()[]{}<>*_`"
_STOPS = frozenset("""and but or so because since as when while if though although which who whom whose
    where whenever after before until unless than then now currently recently lately nowadays anymore
    too also either really very much these those this that with on at in from for by during every each
    last next ago today tomorrow yesterday tonight already yet just over via about around into onto
    instead rather whereas except plus""".split())
_PRONOUNS = frozenset("""it that this them these those you your yours him her his hers their they
    what how which who why when where something anything everything nothing one ones stuff things""".split())
_ARTICLES = ("the ", "a ", "an ", "some ")


_WINDOW = 240   # values are read from at most this many characters after a trigger
_PER_CLAUSE = 20   # a real clause states a handful of facts; a pasted log is not worth more


def _each(pattern: re.Pattern, clause: str):
    """The first matches of ``pattern`` in the clause (at most ``_PER_CLAUSE``)."""
    return itertools.islice(pattern.finditer(clause), _PER_CLAUSE)


def _after(clause: str, m: re.Match) -> str:
    """The text just after a match, bounded: copying the whole rest of a long
    clause for every match would make a 100k-character message quadratic."""
    return clause[m.end():m.end() + _WINDOW]


def _words(tail: str, limit: int) -> list[str]:
    """The first ``limit`` words of ``tail`` (only its head is read, so this stays cheap)."""
    return tail[:_WINDOW].split(None, limit)[:limit]


def _clean(word: str) -> tuple[str, bool]:
    """Strip edge punctuation; report whether the word ended a phrase (.,;:!?)."""
    stripped = word.rstrip(".,;:!?…")
    ended = stripped != word
    return stripped.strip(_EDGE_PUNCT), ended


def _phrase(tail: str, max_words: int = 4, stops=_STOPS) -> str:
    """Words from the start of ``tail`` up to a stop word or punctuation, at most ``max_words``."""
    out = []
    for raw in _words(tail, max_words + 1):
        word, ended = _clean(raw)
        if not word or word.lower() in stops:
            break
        out.append(word)
        if ended or len(out) == max_words:
            break
    return " ".join(out)


_CONNECTORS = frozenset("de da do dos das del della di la le van von der den of upon on am el y du".split())


def _proper(tail: str, lowercase_text: bool, max_words: int = 4) -> str:
    """A proper name at the start of ``tail``: "New York City", "Rio de Janeiro", "Bank of America".

    In ordinary text a name is capitalised; in text typed all in lower case we
    accept up to three plain words and capitalise them ourselves.
    """
    if lowercase_text:
        value = _phrase(tail, min(3, max_words))
        return " ".join(w.capitalize() for w in value.split())
    raw = _words(tail, max_words + 3)
    if raw and raw[0].lower() == "the":
        raw = raw[1:]
    out: list[str] = []
    for i, token in enumerate(raw):
        word, ended = _clean(token)
        if word[:1].isupper():
            # "Google's office": the name ends at the 's; "St. Mary's Hospital" goes on.
            if word.endswith("'s") and not (i + 1 < len(raw) and raw[i + 1][:1].isupper()):
                out.append(word[:-2])
                break
            out.append(word)
        elif out and word.lower() in _CONNECTORS and i + 1 < len(raw) and raw[i + 1][:1].isupper() and not ended:
            out.append(word)
        else:
            break
        if ended or len(out) >= max_words:
            break
    while out and out[-1].lower() in _CONNECTORS:
        out.pop()
    return " ".join(out)


def _a(noun: str) -> str:
    """"engineer" -> "an engineer"."""
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def _strip_article(value: str) -> str:
    low = value.lower()
    for article in _ARTICLES:
        if low.startswith(article):
            return value[len(article):]
    return value


def _singular(word: str) -> str:
    low = word.lower()
    if len(low) > 4 and low.endswith("ies"):
        return low[:-3] + "y"
    if len(low) > 4 and low.endswith("sses"):
        return low[:-2]
    if len(low) > 3 and low.endswith("s") and not low.endswith(("ss", "us", "is")):
        return low[:-1]
    return low


def _slug(value: str, singular_last: bool = True) -> str:
    """A stable attribute key: "Window Seats" -> "window_seat"."""
    words = re.findall(r"[a-z0-9+#]+", value.lower().replace("'s ", " "))
    if singular_last and words:
        words[-1] = _singular(words[-1])
    return "_".join(words)


def _head(value: str) -> str:
    """The last word of a noun phrase, singular: what a preference is *about*."""
    words = re.findall(r"[a-z0-9+#]+", value.lower())
    return _singular(words[-1]) if words else ""


def _items(tail: str, max_words: int = 4) -> list[str]:
    """Split a coordinated list: "peanuts, shellfish and eggs" -> three items."""
    out = []
    for part in re.split(r",\s*(?:and\s+|or\s+)?|\s+(?:and|or|&)\s+", tail[:_WINDOW]):
        item = _strip_article(_phrase(part, max_words))
        if item:
            out.append(item)
        if not part.strip() or re.search(r"[.;:!?]", part) or not item or len(out) >= 6:
            break
        if len(part.split()) > len(item.split()) + 1:   # the list ended inside this part
            break
    return out


def _is_vague(value: str) -> bool:
    words = value.lower().split()
    return not words or words[0] in _PRONOUNS or any(w in _PRONOUNS for w in words)


# ---------------------------------------------------------------------------
# The technology lexicon: aliases -> (canonical name, entity, attribute)
# ---------------------------------------------------------------------------
# A leading "!" marks an alias matched case-sensitively, because in lower case
# it is an everyday word ("express delivery", "in the spring", "rust").
# Attribute names follow seed 000: React is the project's "framework" and an
# auth method belongs to the "API" entity.

_LEXICON: dict[str, tuple[str, str, str, dict[str, str]]] = {
    # category: (entity, attribute, words that name the category, {canonical: "alias alias ..."})
    "database": ("Project", "database", "database databases db data store datastore storage", {
        "PostgreSQL": "postgresql postgres", "MySQL": "mysql", "MariaDB": "mariadb", "SQLite": "sqlite sqlite3",
        "MongoDB": "mongodb mongo", "DynamoDB": "dynamodb", "Cassandra": "cassandra",
        "SQL Server": "sql_server mssql", "CockroachDB": "cockroachdb", "Firestore": "firestore",
        "Supabase": "supabase", "Neo4j": "neo4j", "ClickHouse": "clickhouse", "CouchDB": "couchdb",
        "Oracle Database": "oracle_database !Oracle", "PlanetScale": "planetscale", "BigQuery": "bigquery",
        "Snowflake": "!Snowflake", "TimescaleDB": "timescaledb", "InfluxDB": "influxdb"}),
    "cache": ("Project", "cache", "cache caching", {
        "Redis": "redis", "Memcached": "memcached", "Valkey": "valkey"}),
    "queue": ("Project", "message_queue", "queue queues messaging broker", {
        "RabbitMQ": "rabbitmq", "Kafka": "!Kafka apache_kafka", "SQS": "sqs amazon_sqs", "Celery": "celery"}),
    "vector": ("Project", "vector_store", "vector vectors embeddings", {
        "pgvector": "pgvector", "Pinecone": "pinecone", "ChromaDB": "chromadb !Chroma", "Weaviate": "weaviate",
        "Qdrant": "qdrant", "FAISS": "faiss", "Milvus": "milvus"}),
    "search": ("Project", "search_engine", "search", {
        "Elasticsearch": "elasticsearch", "OpenSearch": "opensearch", "Algolia": "algolia",
        "Meilisearch": "meilisearch", "Typesense": "typesense", "Solr": "solr"}),
    "frontend": ("Project", "framework", "front-end frontend front_end ui client web_app", {
        "React": "react react.js reactjs", "Vue": "vue vue.js vuejs", "Angular": "angular", "Svelte": "svelte",
        "SvelteKit": "sveltekit", "Next.js": "next.js nextjs", "Nuxt": "nuxt nuxt.js", "Remix": "!Remix",
        "SolidJS": "solidjs solid.js", "Ember": "ember.js emberjs", "Preact": "preact", "htmx": "htmx",
        "Astro": "!Astro", "Gatsby": "gatsby", "Qwik": "qwik", "jQuery": "jquery"}),
    "mobile": ("Project", "mobile_framework", "mobile app ios android", {
        "React Native": "react_native", "Flutter": "!Flutter flutter_sdk", "SwiftUI": "swiftui",
        "Jetpack Compose": "jetpack_compose", "Ionic": "!Ionic", "Expo": "!Expo", "Xamarin": "xamarin"}),
    "backend": ("Project", "backend", "backend back-end back_end server api", {
        "Express": "!Express express.js expressjs", "FastAPI": "fastapi", "Django": "django",
        "Flask": "!Flask", "Ruby on Rails": "ruby_on_rails !Rails", "Spring Boot": "spring_boot !Spring",
        "Laravel": "laravel", "NestJS": "nestjs nest.js", "ASP.NET Core": "asp.net_core asp.net",
        "Phoenix": "!Phoenix", "Gin": "!Gin", "Koa": "!Koa", "Fastify": "fastify", "Hono": "!Hono",
        "Actix": "actix", "Axum": "!Axum", "Starlette": "starlette", "Symfony": "symfony",
        "Sinatra": "!Sinatra", "Litestar": "litestar"}),
    "runtime": ("Project", "runtime", "runtime", {
        "Node.js": "node.js nodejs !Node", "Deno": "deno", "Bun": "!Bun"}),
    "tests": ("Project", "test_framework", "test tests testing", {
        "pytest": "pytest", "Jest": "!Jest", "Mocha": "!Mocha", "Vitest": "vitest", "Cypress": "cypress",
        "Playwright": "playwright", "Selenium": "selenium", "JUnit": "junit", "RSpec": "rspec",
        "unittest": "unittest", "PHPUnit": "phpunit", "Jasmine": "!Jasmine", "Testing Library": "testing_library"}),
    "auth": ("API", "auth_method", "auth authentication login log_in sign-in sign_in signin", {
        "JWT": "jwt jwts json_web_token json_web_tokens", "OAuth": "oauth2 oauth_2.0 oauth_2 oauth",
        "OpenID Connect": "openid_connect oidc", "SAML": "saml", "session cookies": "session_cookies",
        "API keys": "api_keys api_key", "basic auth": "basic_auth", "magic links": "magic_links magic_link",
        "passkeys": "passkeys webauthn"}),
    "auth_provider": ("API", "auth_provider", "auth authentication login identity", {
        "Auth0": "auth0", "Clerk": "!Clerk", "Cognito": "cognito", "Firebase Auth": "firebase_auth",
        "Keycloak": "keycloak", "Okta": "okta"}),
    "language": ("Project", "language", "language written", {
        "Python": "python", "TypeScript": "typescript", "JavaScript": "javascript", "Go": "golang",
        "Rust": "!Rust", "Java": "java", "Kotlin": "kotlin", "Swift": "!Swift", "Ruby": "!Ruby",
        "PHP": "php", "C#": "c#", "C++": "c++", "Elixir": "elixir", "Scala": "scala", "Haskell": "haskell",
        "Clojure": "clojure", "Dart": "!Dart"}),
    "cloud": ("Project", "cloud", "cloud hosting host hosted deploy deployment", {
        "AWS": "aws amazon_web_services", "Azure": "azure", "Google Cloud": "gcp google_cloud",
        "Heroku": "heroku", "Vercel": "vercel", "Netlify": "netlify", "DigitalOcean": "digitalocean digital_ocean",
        "Fly.io": "fly.io", "Render": "!Render", "Railway": "!Railway", "Cloudflare": "cloudflare",
        "Hetzner": "hetzner", "Linode": "linode"}),
    "payments": ("Project", "payments", "payment payments billing checkout", {
        "Stripe": "stripe", "PayPal": "paypal", "Braintree": "braintree", "Adyen": "adyen",
        "Square": "!Square", "Paddle": "!Paddle", "Lemon Squeezy": "lemon_squeezy", "Razorpay": "razorpay",
        "Mollie": "mollie"}),
    "css": ("Project", "css_framework", "css styling styles", {
        "Tailwind CSS": "tailwind tailwindcss tailwind_css", "Bootstrap": "!Bootstrap", "Bulma": "bulma",
        "Material UI": "material_ui !MUI", "Chakra UI": "chakra_ui", "Sass": "sass scss"}),
    "orm": ("Project", "orm", "orm", {
        "Prisma": "prisma", "SQLAlchemy": "sqlalchemy", "TypeORM": "typeorm", "Sequelize": "sequelize",
        "Drizzle": "!Drizzle", "Hibernate": "hibernate", "Mongoose": "!Mongoose", "Django ORM": "django_orm"}),
    "ci": ("Project", "ci", "ci pipeline continuous_integration", {
        "GitHub Actions": "github_actions", "GitLab CI": "gitlab_ci", "Jenkins": "jenkins",
        "CircleCI": "circleci", "Travis CI": "travis_ci", "Buildkite": "buildkite"}),
    "containers": ("Project", "containers", "container containers", {"Docker": "docker", "Podman": "podman"}),
    "orchestration": ("Project", "orchestration", "orchestration cluster", {
        "Kubernetes": "kubernetes k8s", "Nomad": "!Nomad", "Docker Swarm": "docker_swarm"}),
    "email": ("Project", "email_provider", "email emails mail", {
        "SendGrid": "sendgrid", "Mailgun": "mailgun", "Postmark": "postmark", "Amazon SES": "amazon_ses"}),
}


def _build_lexicon():
    lookup, ci_aliases, cs_aliases, category_words = {}, [], [], {}
    for category, (entity, attribute, words, names) in _LEXICON.items():
        category_words[category] = [w.replace("_", " ") for w in words.split()]
        for canonical, aliases in names.items():
            for alias in aliases.split():
                sensitive = alias.startswith("!")
                alias = alias.lstrip("!").replace("_", " ")
                lookup[alias if sensitive else alias.lower()] = (canonical, category)
                (cs_aliases if sensitive else ci_aliases).append(alias)

    def alternation(aliases):
        ordered = sorted(set(aliases), key=len, reverse=True)   # "react native" before "react"
        return "|".join(re.escape(a).replace(r"\ ", r"[ \-]") for a in ordered)

    edge_l, edge_r = r"(?<![\w.#+\-@/])", r"(?![\w#+@]|\.\w|-\w)"
    # "Go" the language: capitalised, and not "Go ahead/with/for/...".
    go = (r"(?<!^)(?<![.!?] )(?<![Ll]et's )(?<!'ll )(?<! to )"
          r"Go(?!\s+(?:ahead|for it|back|on|through|over|live|home|out|away|get|check|see)\b)")
    ci_re = re.compile(edge_l + "(?:" + alternation(ci_aliases) + ")" + edge_r, re.I)
    cs_re = re.compile(edge_l + "(?:" + alternation(cs_aliases) + "|" + go + ")" + edge_r)
    lookup["Go"] = ("Go", "language")
    return lookup, ci_re, cs_re, category_words


_TECH_LOOKUP, _TECH_CI, _TECH_CS, _CATEGORY_WORDS = _build_lexicon()
_CATEGORY_RE = {c: re.compile(r"\b(?:" + "|".join(re.escape(w) for w in ws) + r")\b", re.I)
                for c, ws in _CATEGORY_WORDS.items()}


def tech_lexicon() -> dict[str, tuple[str, str]]:
    """Every technology the rules know: ``{canonical name: (entity, attribute)}``.

    Taught in notebooks/04_entity_memory.ipynb.
    """
    out = {}
    for canonical, category in _TECH_LOOKUP.values():
        entity, attribute = _LEXICON[category][:2]
        out[canonical] = (entity, attribute)
    return dict(sorted(out.items()))


def _tech_matches(clause: str):
    """Yield ``(start, end, canonical, category)`` for each technology named in the clause."""
    hits = []
    for regex, sensitive in ((_TECH_CI, False), (_TECH_CS, True)):
        for m in _each(regex, clause):
            key = m.group(0) if sensitive else m.group(0).lower().replace("-", " ")
            if key not in _TECH_LOOKUP:
                key = re.sub(r"[ \-]", " ", key)
            if key in _TECH_LOOKUP:
                hits.append((m.start(), m.end()) + _TECH_LOOKUP[key])
    hits.sort()
    kept, last_end = [], -1
    for hit in hits:                       # drop overlaps ("React Native" hides "React")
        if hit[0] >= last_end:
            kept.append(hit)
            last_end = hit[1]
    return kept


def _tech_attribute(category: str, sentence: str) -> tuple[str, str]:
    entity, attribute = _LEXICON[category][:2]
    if category == "language":   # a project may use one language per side
        if _CATEGORY_RE["frontend"].search(sentence):
            attribute = "frontend_language"
        elif _CATEGORY_RE["backend"].search(sentence):
            attribute = "backend_language"
    return entity, attribute


# ---------------------------------------------------------------------------
# How sure are we? Decision cues, hedges, questions, negation
# ---------------------------------------------------------------------------

_STRONG_CUE = re.compile(
    r"\b(?:use|uses|using|go with|going with|went with|choose|chose|chosen|choosing|pick|picked|picking|"
    r"opt for|opted for|switch|switched|switching|(?:move|moving|moved)(?: \w+){0,2} to|migrate|migrated|migrating|"
    r"adopt|adopted|stick with|sticking with|settle on|settled on|decide|decided|decision|"
    r"(?:will|'ll) be|(?:is|are) going to be|build with|building with|built with|built on|build on|"
    r"written in|write it in|instead|replace|replacing|replaced|standardi[sz]e|standardi[sz]ed|"
    r"commit to|committed to|rely on|relying on|runs? on|running on|let's|lets us)\b", re.I)
_WEAK_CUE = re.compile(
    r"\b(?:build|building|built|want|wants|need|needs|stack|deploy|deploying|deployed|host|hosting|hosted|"
    r"integrate|integrating|add|adding|set up|setting up|install|installing|configure|configuring|"
    r"start with|go through|goes through|via|powered by|based on|handled by|as (?:our|the))\b", re.I)
_HEDGE = re.compile(
    r"\b(?:maybe|perhaps|possibly|probably|might|not sure|unsure|considering|consider|thinking about|"
    r"thinking of|wondering|what about|how about|what if|should we|could we|shall we|would it|if we|"
    r"if i|whether|any thoughts|thoughts on|pros and cons|compare|comparing|versus|vs)\b", re.I)
_MILD_HEDGE = re.compile(r"\b(?:i'm|i am|we're|we are) (?:thinking|leaning towards?)\b", re.I)
_QUESTION_START = re.compile(
    r"^\s*(?:do|does|did|can|could|would|should|is|are|am|will|shall|may|what|which|who|where|when|why|"
    r"how|any)\b", re.I)
_NEG_NEAR = frozenset("not no never without avoid avoiding against nor neither".split())
_NEG_LAST = frozenset("over from than off replace replacing replaced drop dropping dropped ditch "
                      "ditching ditched remove removing removed".split())


_NEG_VERB = re.compile(r"^\W*(?:\w+\W+)?(?:isn't|aren't|wasn't|won't|doesn't|don't|can't|cannot|never|"
                       r"(?:is|are|was|will|does|do) not)\b", re.I)


def _negated(before: str) -> bool:
    """Is the word just before a match negating it? ("not MongoDB", "instead of X", "from X to Y")."""
    tokens = re.findall(r"[a-z']+", before[-60:].lower())
    if not tokens:
        return False
    if tokens[-1] in _NEG_LAST or tokens[-2:] in (["instead", "of"], ["rather", "than"], ["rid", "of"],
                                                  ["away", "from"], ["no", "longer"]):
        return True
    return any(t in _NEG_NEAR or t.endswith("n't") for t in tokens[-5:])


def _is_question(sentence: str) -> bool:
    return sentence.rstrip().endswith("?") or bool(_QUESTION_START.match(sentence))


def _certainty(clause: str, question: bool) -> float:
    """An upper bound on confidence for anything found in this clause."""
    if question or _HEDGE.search(clause):
        return 0.5
    if _MILD_HEDGE.search(clause):
        return 0.75
    return 1.0


# ---------------------------------------------------------------------------
# Personal facts about the user
# ---------------------------------------------------------------------------
# Each pattern matches only a short, fixed trigger; the value is then read
# word by word (bounded), which keeps everything linear.

_ME = r"(?:i|user|the user)"
_ME_BE = r"(?:i'm|im|i am|user is|the user is)"
_MY = r"(?:my|user's|the user's)"
_ADV = r"(?:(?:really|also|absolutely|just|totally|genuinely|actually|truly|still|do|definitely|kind of|" \
       r"kinda|sort of|quite|especially|particularly|very much|mostly|usually|generally|always|much|" \
       r"strongly|now|currently) ){0,3}"

_NAME_MY = re.compile(rf"\b{_MY} (?:first |full |real )?name(?: is|'s) |^(?:the )?name(?:'s| is) ", re.I)
_NAME_CALL = re.compile(rf"\b(?:call me|calls me|{_ME} (?:go|goes) by) ", re.I)
_NAME_IM = re.compile(rf"\b{_ME_BE} |^(?:this is|it's) ", re.I)
_NOT_NAMES = frozenset("""not sure thinking building also so just really very still here back done ready fine good
    great ok okay happy sorry glad excited new sick tired busy working looking going trying using planning
    hoping a an the in at on from with into currently actually afraid aware allergic based interested curious
    worried confused stuck late free available home alone fairly pretty quite totally certain positive
    convinced always never usually honestly literally only kind sort about around now then well all
    originally still definitely probably maybe bored married retired located single vegan vegetarian
    american british english canadian german french spanish italian portuguese brazilian mexican indian
    chinese japanese korean dutch irish scottish welsh australian swedish norwegian danish finnish polish
    russian ukrainian greek turkish israeli egyptian nigerian kenyan argentinian chilean colombian swiss
    austrian belgian vietnamese thai filipino indonesian pakistani european asian african catholic jewish
    muslim christian hindu buddhist monday tuesday wednesday thursday friday saturday sunday back later
    anytime tomorrow whenever sometime soon crazy anything whatever""".split())

_LOCATION = re.compile(
    rf"\b(?:(?:{_ME}|we) {_ADV}(?:live|lives|reside|resides) in"
    rf"|(?:{_ME_BE}|we're|we are) {_ADV}(?:living|residing|based|located) (?:in|out of)"
    rf"|(?:{_ME}|we)(?:'ve| have| has)? {_ADV}(?:moved|relocated) (?:back )?to) ", re.I)
_ORIGIN = re.compile(rf"\b{_ME_BE} (?:originally )?from ", re.I)
_EMPLOYER = re.compile(
    rf"\b(?:{_ME} {_ADV}(?:work|works) (?:at|for)|{_ME_BE} {_ADV}(?:working|employed) (?:at|for|by)"
    rf"|{_ME} {_ADV}(?:work|works) as (?:an? )?[\w-]+(?: [\w-]+)? (?:at|for)) ", re.I)
_WORK_AS = re.compile(rf"\b{_ME} {_ADV}(?:work|works) as (?:an? )?", re.I)
_AS_JOB = re.compile(rf"\b{_ME} {_ADV}(?:work|works)\b[^,;:]{{1,60}}? as (?:an? )?", re.I)
_IM_A = re.compile(rf"\b{_ME_BE} {_ADV}(?:an?) ", re.I)
_AGE = re.compile(rf"\b{_ME_BE} (\d{{1,3}})(?: (?:years?|yrs) old)?\s*(?:[,.!;]|$)", re.I)
_DIETS = {"vegetarian": "vegetarian", "vegan": "vegan", "pescatarian": "pescatarian",
          "pescetarian": "pescatarian", "flexitarian": "flexitarian", "keto": "keto", "ketogenic": "keto",
          "paleo": "paleo", "gluten-free": "gluten-free", "gluten free": "gluten-free",
          "dairy-free": "dairy-free", "dairy free": "dairy-free", "lactose-free": "lactose-free",
          "halal": "halal", "kosher": "kosher", "plant-based": "plant-based", "plant based": "plant-based",
          "low-carb": "low-carb", "low carb": "low-carb", "carnivore": "carnivore"}
_DIET_WORDS = "|".join(sorted((re.escape(d) for d in _DIETS), key=len, reverse=True))
_DIET = re.compile(
    rf"\b(?:{_ME_BE}|i've been|i have been|i went|i've gone|i have gone|we're|we are) "
    rf"(?:(?:a|an|strictly|fully|mostly|mainly|now|also|still|actually|completely|pretty much|100%) ){{0,2}}"
    rf"({_DIET_WORDS})\b"
    rf"|\b{_ME} {_ADV}(?:eat|eats|follow|follows|keep|keeps|do|stick to|sticks to|am on|'m on|"
    rf"am following|'m following) (?:(?:a|an|the|only|strictly|mostly) ){{0,2}}({_DIET_WORDS})\b", re.I)
_EAT_NOT = re.compile(rf"\b{_ME} {_ADV}(?:don't|do not|doesn't|does not|never|can't|cannot) eat ", re.I)
_ALLERGIC = re.compile(rf"\b(?:{_ME_BE}|i've always been|i have always been|i've been|i have been) "
                       rf"(?:(?:very|severely|mildly|highly|also|really|extremely|slightly|quite|deathly|"
                       rf"seriously|super) ){{0,2}}allergic to ", re.I)
_ALLERGY_HAVE = re.compile(rf"\b{_ME} (?:also )?(?:have|has) (?:an? )?(?:(?:severe|mild|bad|serious|slight|"
                           rf"strong|nasty) )?([a-z]+(?:[ -][a-z]+)?) allerg(?:y|ies)\b", re.I)
_INTOLERANT = re.compile(rf"\b{_ME_BE} (?:also |very |quite )?(\w+) intolerant\b", re.I)
_FAVORITE = re.compile(rf"\b{_MY} (?:(?:all-time|all time|absolute|personal) )?favou?rite "
                       r"([a-z]+(?: [a-z]+){0,2}?) (?:is|are) ", re.I)
_FAVORITE_REV = re.compile(r"\b([\w-]+(?: [\w-]+){0,2}) (?:is|are) (?:definitely |probably )?my "
                           r"(?:all-time |absolute )?favou?rite ([a-z]+(?: [a-z]+)?)\b", re.I)
_I_PREFER = re.compile(rf"\b{_ME}(?:'d| would)? {_ADV}(?:prefer|prefers|rather)\b", re.I)
_PREFER = re.compile(rf"\b(?:{_ME}|we)(?:'d| would)? {_ADV}(?:prefer|prefers|rather)\b ?"
                     rf"|\b{_MY} preference is (?:for )?", re.I)
_LIKE = re.compile(rf"\b{_ME} {_ADV}(like|likes|love|loves|enjoy|enjoys|adore|adores)\b ?"
                   rf"|\b{_ME_BE} {_ADV}(?:(?:a (?:big |huge |massive )?fan of)|into) ", re.I)
_DISLIKE = re.compile(
    rf"\b{_ME} {_ADV}(?:don't|do not|doesn't|does not|didn't|did not|never|can't|cannot) "
    rf"(?:really |particularly |much |actually |even )?(?:like|love|enjoy|stand|care for)\b ?"
    rf"|\b{_ME} {_ADV}(?:hate|hates|dislike|dislikes|detest|detests|loathe|loathes|can't stand) "
    rf"|\b{_ME_BE} not {_ADV}(?:(?:a (?:big |huge )?fan of)|into) ", re.I)
_BUILDING = re.compile(r"\b(?:i'm|i am|we're|we are|user is|the team is) (?:(?:currently|now|just|also) )?"
                       r"(?:building|making|creating|developing|working on|writing|designing) "
                       r"(?=(?:an?|the|my|our|some) )", re.I)
_WANT = re.compile(rf"\b(?:{_ME}|we) {_ADV}(want|wants|need|needs) ", re.I)
_MY_X_IS = re.compile(r"\b(my|our|user's) ([a-z][\w'-]*(?: [a-z][\w'-]*){0,2}?) (?:is|are) ", re.I)
_NOT_ATTRIBUTES = frozenset("""guess point question problem issue concern thought thoughts feeling bad fault pleasure
    turn understanding impression hunch worry sense take opinion answer bet advice suggestion mistake
    plan idea hope fear main_concern bigger_problem main_question only_question first_question
    biggest_worry favorite favourite preference name""".split())
_VAGUE_START = ("that ", "not ", "to ", "a bit", "kind of", "sort of", "so ", "very ", "too ", "the same",
                "pretty ", "really ", "quite ", "still ", "also ", "like ", "gonna ", "going ")
_JOBS = frozenset("""engineer developer designer manager teacher nurse doctor student scientist analyst
    consultant writer lawyer architect accountant researcher founder freelancer programmer chef artist
    photographer musician professor pharmacist dentist marketer editor journalist intern administrator
    technician electrician plumber therapist librarian translator cto ceo cfo coo pm owner tester
    recruiter salesperson entrepreneur investor physician surgeon veterinarian vet pilot paramedic
    firefighter officer carpenter mechanic barista cook baker farmer coach trainer instructor tutor lecturer
    economist statistician mathematician physicist chemist biologist sre devops""".split())
_NO_EMPLOYER = frozenset("home night nights weekends weekend myself fun free night-shift".split())
_NO_WANT = frozenset("help hand advice minute moment second break time hint tip idea".split())

_MONEY = re.compile(
    r"(?:(?:about|around|roughly|approximately|approx\.?|up to|under|below|less than|at most|no more than|"
    r"over|at least|maybe|~)\s)?"
    r"(?:[$€£¥]\s?\d[\d,]{0,15}(?:\.\d{1,4})?(?:\s?(?:k|m|bn|thousand|million|grand)\b)?"
    r"|\d[\d,]{0,15}(?:\.\d{1,4})?\s?(?:k|thousand|million|grand)?\s?(?:dollars?|usd|euros?|eur|pounds?|gbp|bucks|"
    r"yen|francs?|chf|rupees?|inr|aud|cad|sek|nok)\b"
    r"|\d[\d,]{0,15}(?:\.\d{1,4})?\s?(?:k|grand)\b)"
    r"(?:\s?(?:a|an|per|each|every|/)\s?(?:month|year|week|day|night|person|head|hour|user|seat|mo|yr)\b)?",
    re.I)
_BUDGET = re.compile(r"\b(?:(my|our|the|user's|team's|project's|a|an) )?((?:[a-z]+ ){0,2}?)budget\b", re.I)
_BUDGET_FUNCTION_WORDS = frozenset("have has had a an the our my is was of with set get got total overall "
                                  "whole entire".split())
_SPEND = re.compile(rf"\b{_ME} (?:can|could) (?:only )?(?:spend|afford)|\bwilling to (?:spend|pay)\b", re.I)
_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_DATE = re.compile(
    rf"\b(?:(?:[Tt]he )?(?:[Ee]nd|[Ss]tart|[Bb]eginning|[Mm]iddle|[Mm]id|[Ff]irst week|[Ll]ast week) of )?"
    rf"(?:{_MONTHS})(?: \d{{1,2}}(?:st|nd|rd|th)?)?(?:,? \d{{4}})?\b"
    r"|\b\d{4}-\d{2}-\d{2}\b|\b[Qq][1-4](?: \d{4})?\b"
    r"|\b(?:next|this) (?:week|month|quarter|year|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b")
_LAUNCH = re.compile(r"\b(?:launch|launching|release|releasing|ship|shipping|go live|going live|deadline|"
                     r"due|deliver|delivery|finish|finished|ready)\b", re.I)


def _found(entity, attribute, value, confidence, phrase, rank, pos) -> _Found:
    value = value.replace(_DOT, ".")
    phrase = re.sub(r"\s+", " ", phrase.replace(_DOT, ".")).strip().lower()
    return _Found(Triple(entity, attribute, value, round(confidence, 2)), phrase, rank, pos)


def _personal(clause: str, pos: int, lower: bool) -> tuple[list[_Found], list[tuple[int, int]]]:
    """Facts about the user in one clause, and the spans they used (so "I work at Oracle"
    is an employer, not a database)."""
    out: list[_Found] = []
    spans: list[tuple[int, int]] = []
    low = clause.lower()

    def add(entity, attribute, value, confidence, phrase, rank, start, end=None):
        out.append(_found(entity, attribute, value, confidence, phrase, rank, pos + start))
        spans.append((start, end if end is not None else start + 80))

    # -- names ---------------------------------------------------------
    if "name" in low:
        for m in _each(_NAME_MY, clause):
            name = _proper(_after(clause, m), lower, 3) or _phrase(_after(clause, m), 1).capitalize()
            if name and name.lower() not in _NOT_NAMES:
                add("User", "name", name, 0.9, f"name is {name}", 0, m.start())
    if "call" in low or " by " in low:
        for m in _each(_NAME_CALL, clause):
            name = _proper(_after(clause, m), lower, 1 if lower else 2)
            first = name.split()[0].lower() if name else ""
            if name and first not in _NOT_NAMES and first not in _STOPS:
                add("User", "name", name, 0.85, f"name is {name}", 0, m.start())
    if "i" in low or "this is" in low or "it's" in low:
        for m in _each(_NAME_IM, clause):
            tail = _after(clause, m)
            if not tail[:1].isupper():
                continue
            name = _proper(tail, False, 2)
            first = name.split()[0].lower() if name else ""
            if name and first not in _NOT_NAMES and first not in _STOPS and not first.endswith("ing") \
                    and first not in _TECH_LOOKUP and name not in _TECH_LOOKUP:
                add("User", "name", name, 0.85, f"name is {name}", 0, m.start())

    # -- where the user lives and works --------------------------------
    if any(w in low for w in ("live", "living", "resid", "based", "located", "moved", "relocated")):
        for m in _each(_LOCATION, clause):
            place = _proper(_after(clause, m), lower)
            if place and place.lower() not in _TECH_LOOKUP and place not in _TECH_LOOKUP:
                add("User", "location", place, 0.9, f"lives in {place}", 4, m.start(), m.end() + len(place) + 1)
    if "from" in low:
        for m in _each(_ORIGIN, clause):
            place = _proper(_after(clause, m), lower)
            if place:
                add("User", "origin", place, 0.85, f"is from {place}", 3, m.start(), m.end() + len(place) + 1)
    if "work" in low or "employed" in low:
        for m in _each(_EMPLOYER, clause):
            tail = _after(clause, m)
            if re.match(r"(?:an?|the) [a-z]", tail):   # "a bakery", not a name
                company = _phrase(tail, 4)
            else:
                company = _proper(tail, lower)
            if company and company.lower() not in _NO_EMPLOYER and not _is_vague(company):
                add("User", "employer", company, 0.9, f"works at {company}", 5, m.start(),
                    m.end() + len(company) + 1)
        for m in _each(_WORK_AS, clause):
            job = _phrase(_after(clause, m), 4)
            if job:
                add("User", "occupation", job, 0.85, f"works as {_a(job)}", 3, m.start())
        for m in _each(_AS_JOB, clause):   # "I work for Acme as a firmware engineer"
            job = _phrase(_after(clause, m), 4)
            if job and _head(job) in _JOBS and not _WORK_AS.search(clause):
                add("User", "occupation", job, 0.85, f"works as {_a(job)}", 3, m.start())

    # -- "I'm a ...": occupation, diet or fandom -----------------------
    if "a " in low:
        for m in _each(_IM_A, clause):
            tail = _after(clause, m)
            if re.match(r"(?:big |huge |massive )?fan of ", tail, re.I):
                continue   # handled with likes
            job = _phrase(tail, 4)
            if job and _head(job) in _JOBS:
                add("User", "occupation", job, 0.85, f"is {_a(job)}", 3, m.start())
    for m in _each(_AGE, clause):
        add("User", "age", m.group(1), 0.85, f"is {m.group(1)} years old", 3, m.start())
    for m in _each(_DIET, clause):
        diet = _DIETS[(m.group(1) or m.group(2)).lower()]
        add("User", "diet", diet, 0.9, f"is {diet}", 3, m.start())

    # -- allergies (several may hold at once: one key per allergen) -----
    if "eat" in low:
        for m in _each(_EAT_NOT, clause):
            for item in _items(_after(clause, m), 3):
                if not _is_vague(item):
                    add("User", f"avoids:{_slug(item)}", item, 0.85, f"does not eat {item}", 3, m.start())
    if "allerg" in low:
        for m in _each(_ALLERGIC, clause):
            for item in _items(_after(clause, m), 3):
                add("User", f"allergy:{_slug(item)}", item, 0.9, f"is allergic to {item}", 3, m.start())
        for m in _each(_ALLERGY_HAVE, clause):
            item = m.group(1)
            add("User", f"allergy:{_slug(item)}", item, 0.9, f"is allergic to {item}", 3, m.start())
    if "intolerant" in low:
        for m in _each(_INTOLERANT, clause):
            item = m.group(1)
            add("User", f"intolerance:{_slug(item)}", item, 0.85, f"is {item} intolerant", 3, m.start())

    # -- favourites, preferences, likes --------------------------------
    if "favo" in low:
        for m in _each(_FAVORITE, clause):
            thing, value = m.group(1), _phrase(_after(clause, m), 4)
            if value and not _is_vague(value):
                add("User", f"favorite_{_slug(thing, False)}", value, 0.9, f"favorite {thing} is {value}", 0,
                    m.start())
        for m in _each(_FAVORITE_REV, clause):
            value, thing = m.group(1), m.group(2)
            value = re.sub(r"^(?:i think|honestly|probably|the|a|an) ", "", value, flags=re.I)
            if value and not _is_vague(value):
                add("User", f"favorite_{_slug(thing, False)}", value, 0.85, f"favorite {thing} is {value}", 0,
                    m.start())
    if "prefer" in low or "rather" in low:
        for m in _each(_PREFER, clause):
            out.extend(_preference(clause, m, pos))
    if any(w in low for w in ("like", "love", "enjoy", "ador", "fan of", "into", "hate", "stand", "care for",
                              "detest", "loathe")):
        negative_spans = []
        for m in _each(_DISLIKE, clause):
            negative_spans.append(m.span())
            for item in _items(_after(clause, m), 4):
                if not _is_vague(item):
                    add("User", f"dislikes:{_slug(item)}", item, 0.85, f"dislikes {item}", 2, m.start())
        for m in _each(_LIKE, clause):
            if any(s <= m.start() < e for s, e in negative_spans):
                continue
            verb = (m.group(1) or "like").lower()
            verb = verb if verb.endswith("s") else verb + "s"
            tail = _after(clause, m)
            if re.match(r"to (?:think|say|know|believe|imagine|keep|make|point|add|mention|ask|see|get|have)\b",
                        tail, re.I):
                continue
            tail = re.sub(r"^to ", "", tail, flags=re.I)
            for item in _items(tail, 4):
                if not _is_vague(item):
                    add("User", f"likes:{_slug(item)}", item, 0.85, f"{verb} {item}", 2, m.start())
    if "ing " in low:
        for m in _each(_BUILDING, clause):
            what = _phrase(_after(clause, m), 8, stops=_STOPS - {"for", "with", "in", "on"})
            what = re.split(r"\s+(?:with|using|in|on)\s+", what)[0]   # the stack is a separate fact
            if what and not _is_vague(what):
                add("Project", "description", what, 0.8, f"is building {what}", 6, m.start(), m.start() + 1)
    if "want" in low or "need" in low:
        for m in _each(_WANT, clause):
            tail = _after(clause, m)
            item = _strip_article(_phrase(tail, 4))
            if item and not re.match(r"to\b", tail, re.I) and not _is_vague(item) \
                    and item.split()[0].lower() not in _NO_WANT and not _tech_matches(item):
                add("User", f"wants:{_slug(item)}", item, 0.75, f"wants {item}", 2, m.start())

    # -- "my X is Y" / "our X is Y": everything else with a name ------
    if " is " in low or " are " in low:
        for m in _each(_MY_X_IS, clause):
            owner, thing = m.group(1).lower(), m.group(2).lower()
            key = _slug(thing, False)
            if key in _NOT_ATTRIBUTES or key.endswith("budget") or key.startswith("favo") \
                    or key in ("first_name", "full_name", "real_name"):
                continue
            tail = _after(clause, m)
            called = re.match(r"(?:called|named) ", tail, re.I)
            if called:   # "my dog is called Rex" -> dog_name: Rex
                key, thing, tail = key + "_name", thing + " name", tail[called.end():]
            if tail.lower().startswith(_VAGUE_START):
                continue
            value = _phrase(tail, 5, stops=_STOPS - {"with", "on", "at", "in", "from", "for", "by"})
            if value and not _is_vague(value):
                entity = "Project" if owner == "our" else "User"
                add(entity, key, value, 0.8, f"{thing} is {value}", 0, m.start())
    return out, spans


def _preference(clause: str, m: re.Match, pos: int) -> list[_Found]:
    """"I prefer X (over Y)": the key says what the preference is about, so a new
    seat preference replaces the old one, while a food preference sits beside it."""
    tail = _after(clause, m)
    if re.match(r"not\b", tail, re.I):
        return []
    verb_phrase = re.match(r"to (\w+)", tail, re.I)
    if verb_phrase:
        value = "to " + _phrase(tail[3:], 6, stops=_STOPS - {"on", "at", "in", "from", "with", "by", "during"})
        key = _singular(verb_phrase.group(1))
    else:
        tail = re.sub(r"^(?:to use|use|using|go with|have|get|take|eat|drink|go for|sit in|book) ", "", tail,
                      flags=re.I)
        said = _phrase(tail, 4, stops=_STOPS | {"to"})
        value = _strip_article(said)
        rest = tail[len(said):_WINDOW] if said else ""
        other = re.match(r"\s*(?:over|to|rather than|instead of|than|versus|vs\.?)\s+(?:the |a |an )?(.+)",
                         rest, re.I)
        techs = _tech_matches(value)
        if techs:
            value = techs[0][2]
            key = _tech_attribute(techs[0][3], clause)[1]
        elif other and _phrase(other.group(1), 4):
            key = "_vs_".join(sorted([_head(value), _head(_phrase(other.group(1), 4))]))
        else:
            key = _head(value)
    if not value or not key or _is_vague(value):
        return []
    entity = "Project" if m.group(0).lower().startswith("we") else "User"
    return [_found(entity, f"preference:{key}", value, 0.9, f"prefers {value}", 1, pos + m.start())]


def _money(clause: str) -> str:
    m = _MONEY.search(clause)
    return m.group(0).strip() if m else ""


def _budget(clause: str, pos: int, speaker_is_user: bool) -> list[_Found]:
    low = clause.lower()
    out = []
    m = _BUDGET.search(clause) if "budget" in low else None
    if m:
        owner = (m.group(1) or "").lower()
        modifier_words = m.group(2).lower().split()
        while modifier_words and modifier_words[0] in _BUDGET_FUNCTION_WORDS:
            word = modifier_words.pop(0)
            owner = word if word in ("my", "our", "the", "a", "an") else owner
        modifier = " ".join(w for w in modifier_words if w not in ("total", "overall", "whole", "entire"))
        value = _money(_after(clause, m)) or _money(clause[max(m.start() - 120, 0):m.start()])
        if not value:
            plain = re.match(r"\s*(?:is|of|'s|was set to|will be)\s+(?:about |around |roughly )?(\d[\d,.]{0,15})\b",
                             _after(clause, m), re.I)
            value = plain.group(1) if plain else ""
        if not value:   # "my budget is tight"
            is_phrase = re.match(r"\s*(?:is|'s) ", _after(clause, m), re.I)
            value = _phrase(_after(clause, m)[is_phrase.end():], 3) if is_phrase else ""
        if value and not _is_vague(value):
            # "my budget" is the user's; "our/the budget", or one the assistant states, is the project's.
            project = owner not in ("my", "user's") and (
                owner in ("our", "the", "team's", "project's") or not speaker_is_user
                or re.search(r"\b(?:we|our|project|team|company|app)\b", low) is not None)
            thing = (modifier + " budget").strip()
            out.append(_found("Project" if project else "User", _slug(thing, False), value, 0.9,
                              f"{thing} is {value}", 0, pos + m.start()))
    elif speaker_is_user and (spend := _SPEND.search(clause)):
        value = _money(_after(clause, spend))
        if value:
            out.append(_found("User", "budget", value, 0.85, f"budget is {value}", 0, pos))
    return out


def _deadline(clause: str, pos: int) -> list[_Found]:
    if not _LAUNCH.search(clause):
        return []
    m = _DATE.search(clause)
    if not m:
        return []
    value = re.sub(r"^[Tt]he ", "", m.group(0))
    return [_found("Project", "deadline", value, 0.85, f"deadline is {value}", 6, pos + m.start())]


def _names_category(cache: dict, category: str, sentence: str) -> bool:
    if category not in cache:   # searched once per sentence, not once per mention
        cache[category] = _CATEGORY_RE[category].search(sentence) is not None
    return cache[category]


def _technology(clause: str, sentence: str, pos: int, taken, i_prefer: bool) -> list[_Found]:
    """Technologies named in the clause, with a confidence from the words around them."""
    out = []
    hits = _tech_matches(clause)
    if not hits:
        return out
    strong, weak = _STRONG_CUE.search(clause), _WEAK_CUE.search(clause)
    named: dict[str, bool] = {}   # does the sentence name the category ("for the database")?
    attributes: dict[str, tuple[str, str]] = {}
    previous_end = 0
    for start, end, canonical, category in hits:
        before = clause[previous_end:start]
        previous_end = end
        if any(s <= start < e for s, e in taken) or _negated(before) or _NEG_VERB.match(clause[end:end + 40]):
            continue
        if i_prefer:
            continue   # "I prefer React" is the user's preference, recorded by _preference
        if category not in attributes:
            attributes[category] = _tech_attribute(category, sentence)
        entity, attribute = attributes[category]
        if strong:
            confidence = 0.9
        elif weak or _names_category(named, category, sentence):
            confidence = 0.8
        else:
            confidence = 0.6    # a bare mention: "MySQL is popular"
        phrase = f"{attribute.replace('_', ' ')} is {canonical}"
        out.append(_found(entity, attribute, canonical, confidence, phrase, 6, pos + start))
    return out


# ---------------------------------------------------------------------------
# The public rules
# ---------------------------------------------------------------------------

def _analyse(text: str) -> list[_Found]:
    """Every fact candidate in ``text``, in seed 004's order (kind, then position)."""
    text = _normalise(require_text("text", text, allow_empty=True))
    if not text.strip():
        return []
    lower = not any(c.isupper() for c in text)
    found: list[_Found] = []
    for role, line, line_pos in _lines(text):
        speaker_is_user = role in (None, "user")
        for sentence_match in _SENTENCE.finditer(line):
            sentence = sentence_match.group(1)
            if not any(c.isalpha() for c in sentence):
                continue
            question = _is_question(sentence)
            for clause, clause_pos in _clauses(sentence):
                pos = line_pos + sentence_match.start(1) + clause_pos
                cap = _certainty(clause, question)
                facts, taken = (_personal(clause, pos, lower) if speaker_is_user else ([], []))
                i_prefer = speaker_is_user and _I_PREFER.search(clause) is not None
                facts += _budget(clause, pos, speaker_is_user)
                facts += _deadline(clause, pos)
                facts += _technology(clause, sentence, pos, taken, i_prefer)
                for f in facts:
                    if f.triple.confidence > cap:
                        f = f._replace(triple=f.triple._replace(confidence=cap))
                    found.append(f)
    # The same fact said twice keeps its first place and its highest confidence.
    best: dict[tuple, _Found] = {}
    for f in sorted(found, key=lambda f: (f.rank, f.pos)):
        key = (f.triple.entity, f.triple.attribute, f.triple.value.lower())
        if key not in best:
            best[key] = f
        elif f.triple.confidence > best[key].triple.confidence:
            best[key] = best[key]._replace(triple=best[key].triple._replace(confidence=f.triple.confidence))
    return list(best.values())


def rule_triples(text: str, *, min_confidence: float = 0.7) -> list[Triple]:
    """Extract ``(entity, attribute, value, confidence)`` triples with rules, no model.

    >>> rule_triples("We're building with React and PostgreSQL")
    [Triple(entity='Project', attribute='database', value='PostgreSQL', confidence=0.9), ...]

    Only triples with ``confidence >= min_confidence`` are returned (seed 001's
    filter); pass ``min_confidence=0`` to see the mentions, questions and hedges too.

    Taught in notebooks/04_entity_memory.ipynb.
    """
    min_confidence = require_fraction("min_confidence", min_confidence)
    return [f.triple for f in _analyse(text) if f.triple.confidence >= min_confidence]


def extract_facts(text: str) -> list[str]:
    """Seed 004's atomic facts: ``["name is dana", "lives in lisbon", "prefers window seats", ...]``.

    Lower-case strings, one fact each, only the confident ones.
    Taught in notebooks/04_entity_memory.ipynb.
    """
    facts = []
    for f in _analyse(text):
        if f.triple.confidence >= 0.7 and f.phrase not in facts:
            facts.append(f.phrase)
    return facts


# ---------------------------------------------------------------------------
# Importance
# ---------------------------------------------------------------------------

_CHITCHAT = re.compile(
    r"^(?:\W*(?:ok|okay|k|sure|yes|yeah|yep|yup|no|nope|thanks|thank you|thx|ty|cool|nice|great|awesome|"
    r"perfect|sounds good|sounds great|got it|makes sense|hi|hello|hey|bye|good morning|good night|lol|"
    r"haha|right|alright|noted|understood|fine|agreed|will do|wow|oh|hmm|indeed|exactly|of course)\b)+\W*$",
    re.I)
_DECISION_WORD = re.compile(r"\b(?:decid\w*|decision|chose|choose|choosing|pick(?:ed)?|switch\w*|prefer\w*|"
                            r"let's|go(?:ing)? with|will be|instead|settled?|use|using|must|never|always)\b",
                            re.I)
_NUMBER = re.compile(r"\d")
_PLAN_WORD = re.compile(r"\b(?:need|needs|want|wants|plan|plans|planning|build|building|should|must|"
                        r"will|'ll|going to|goal|deadline|budget)\b", re.I)
_REASON = re.compile(r"\b(?:because|since|due to|so that|as it|given that|for (?:its|their) \w+|"
                     r"the reason)\b", re.I)


def importance_rules(text: str) -> float:
    """How much a message matters later, from 0.0 (nothing) to 1.0, by rules.

    Facts and decisions score high, numbers and reasons add a little, small
    talk ("ok sounds good") scores almost nothing. Rounded to 2 decimals.

    Taught in notebooks/03_summary_memory.ipynb.
    """
    return _importance(require_text("text", text, allow_empty=True), None)


def _importance(text: str, facts: list | None) -> float:
    if not any(c.isalnum() for c in text):
        return 0.0
    if _CHITCHAT.match(text[:200]):
        return 0.05
    score = 0.1
    facts = rule_triples(text) if facts is None else facts
    if facts:
        score += 0.4 + 0.05 * min(len(facts) - 1, 2)
    if _DECISION_WORD.search(text):
        score += 0.2
    elif _PLAN_WORD.search(text):
        score += 0.1
    if _NUMBER.search(text):
        score += 0.15
    if _REASON.search(text):
        score += 0.1
    if "?" in text:
        score += 0.1
    if len(text.split()) > 30:
        score += 0.05
    return round(min(score, 1.0), 2)


# ---------------------------------------------------------------------------
# Summaries
# ---------------------------------------------------------------------------
# An extractive summariser: keep the sentences that carry facts, decisions,
# numbers and reasons, rewrite "I"/"we" into "User"/"the team" so the summary
# reads the same whoever reads it, and, when over the word limit, give things
# up in a fixed order: weak sentences, then reasons (the "why" drifts first,
# as seed 000 warns), then whole facts, least important first.

_FILLER = re.compile(
    r"^(?:(?:hi|hello|hey|ok|okay|so|well|actually|also|anyway|alright|right|great|cool|nice|sure|yes|yeah|"
    r"yep|oh|um|uh|btw|by the way|honestly|basically|noted|understood|sounds good|thanks|thank you|perfect|"
    r"happy to help|of course|good|got it)\b[,!.:;]?\s+){1,4}",
    re.I)
_IMPERATIVE = re.compile(r"^(?:add|use|create|build|implement|set up|make|remove|include|support|deploy|"
                         r"write|fix|switch|move|keep|start|send|store|hide|put|split|promote|rotate|"
                         r"design|aim|plan|launch|ship)\b", re.I)
_MODALS = frozenset("can could will would should might must may did was had shall".split())
_ADVERBS = frozenset("""really also just still actually always usually never only definitely mostly often
    sometimes generally totally absolutely honestly personally strongly much already even""".split())
_NOT_PAST = frozenset("need feed seed speed proceed succeed exceed bleed breed embed shred".split())


def _third_person(verb: str) -> str:
    low = verb.lower()
    irregular = {"have": "has", "do": "does", "go": "goes", "am": "is", "are": "is", "be": "is",
                 "don't": "doesn't", "haven't": "hasn't", "aren't": "isn't", "do not": "does not"}
    if low in irregular:
        return irregular[low]
    if low in _MODALS or (low.endswith("ed") and low not in _NOT_PAST) or low.endswith("n't"):
        return verb
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if len(low) > 2 and low.endswith("y") and low[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


_CONTRACTIONS = [(r"\b(?:i'm|i am)\b", "{S} is"), (r"\bi've\b", "{S} has"), (r"\bi'll\b", "{S} will"),
                 (r"\bi'd\b", "{S} would"), (r"\bcall me\b", "{S} goes by"),
                 (r"\b(?:we're|we are)\b", "the team is"), (r"\bwe've\b", "the team has"),
                 (r"\bwe'll\b", "the team will"), (r"\bwe'd\b", "the team would"),
                 (r"\bmy\b", "{S}'s"), (r"\bour\b", "the team's"), (r"\bmyself\b", "themselves")]


def _rewrite(sentence: str, role: str) -> str:
    """First person to third: "I prefer window seats" -> "User prefers window seats"."""
    subject = "Assistant" if role == "assistant" else "User"
    text = _FILLER.sub("", sentence.strip()).strip()
    text = re.sub(r"^(?:let's|lets)\b", "Decided to" if subject == "User" else "Suggested to", text, flags=re.I)
    text = re.sub(r"\b(?:let's|lets)\b", "decided to" if subject == "User" else "suggested to", text, flags=re.I)
    text = re.sub(r"^(?:[Ii]'m|[Ii] am) ([A-Z][\w-]+)(?=[.!]*$)", rf"{subject}'s name is \1", text)
    text = _third_person_words(text, role).rstrip(" .!,;:")
    return (text[:1].upper() + text[1:] + ".") if text else ""


def _third_person_words(text: str, role: str) -> str:
    """The pronoun part of ``_rewrite``: "my sister's" -> "User's sister's", "I need" -> "User needs"."""
    subject = "Assistant" if role == "assistant" else "User"
    for pattern, replacement in _CONTRACTIONS:
        text = re.sub(pattern, replacement.format(S=subject), text, flags=re.I)

    def conjugate(m: re.Match) -> str:
        subject_word = subject if m.group(1).lower() == "i" else "the team"
        adverbs, verb = m.group(2) or "", m.group(3)
        return f"{subject_word} {adverbs}{_third_person(verb)}"

    text = re.sub(r"\b(i|we)\b(?![.'])\s+((?:(?:" + "|".join(_ADVERBS) + r")\s+){0,2})([a-z']+)",
                  conjugate, text, flags=re.I)
    if role == "assistant":
        text = re.sub(r"\b(?:you're|you are)\b", "User is", text, flags=re.I)
        text = re.sub(r"\byour\b", "User's", text, flags=re.I)
    return text


class _Unit(NamedTuple):
    text: str
    score: float
    triples: tuple
    order: int
    role: str


def _salient(sentence: str, role: str, facts: list[Triple]) -> bool:
    """Worth a place in the summary: a fact, a decision, a plan, a number or a reason."""
    if _is_question(sentence) or _CHITCHAT.match(sentence[:200]):
        return False
    if role == "assistant":
        return bool(facts)
    core = _FILLER.sub("", sentence.strip())
    return bool(facts or _DECISION_WORD.search(core) or _PLAN_WORD.search(core)
                or _NUMBER.search(core) or _REASON.search(core) or _IMPERATIVE.match(core))


def _make_unit(text: str, role: str, order: int, facts: list[Triple] | None = None) -> _Unit:
    facts = rule_triples(text) if facts is None else facts
    score = _importance(text, facts) * (0.8 if role == "assistant" else 1.0)
    return _Unit(text, score, tuple((t.entity, t.attribute, t.value) for t in facts), order, role)


def _strip_reason(text: str) -> str:
    m = _REASON.search(text)
    if not m or m.start() < 8:
        return text
    head = text[:m.start()].rstrip(" ,;:-—–")
    # "…, mainly for its JSONB support" must not leave "…, mainly." behind.
    head = _HEDGE_TAIL.sub("", head).rstrip(" ,;:-—–")
    return head + "." if head else text


_HEDGE_TAIL = re.compile(r"[\s,]+(?:mainly|mostly|partly|largely|primarily|chiefly|especially|"
                         r"simply|just|only|probably)$", re.I)


_ELABORATION = re.compile(r":\s|;\s|\s[-–—]\s|,\s(?:with|which|so|where|including)\s")


def _trim_elaboration(unit: _Unit) -> _Unit:
    """Cut what follows a colon, semicolon or dash when the head already holds the facts."""
    m = _ELABORATION.search(unit.text)
    if not m:
        return unit
    head = unit.text[:m.start()].rstrip(" ,")
    if len(head.split()) < 3 or not all(v.lower() in head.lower() for _, _, v in unit.triples):
        return unit
    return unit._replace(text=head + ".")


def _words_in(unit: _Unit) -> int:
    return len(unit.text.split())


def _fit(units: list[_Unit], max_words: int) -> list[_Unit]:
    """Give things up, in a fixed order, until the summary fits in ``max_words``."""
    total = sum(_words_in(u) for u in units)

    def drop(order: list[_Unit], stop) -> None:
        nonlocal units, total
        gone = set()
        for unit in order:
            if total <= max_words or stop(unit) or len(units) - len(gone) == 1:
                break
            gone.add(unit.order)
            total -= _words_in(unit)
        units = [u for u in units if u.order not in gone]

    # 1. weak sentences, the weakest and oldest first
    drop(sorted(units, key=lambda u: (u.score, u.order)), stop=lambda u: u.score >= 0.5)
    # 2. elaborations, then reasons, oldest first: "PostgreSQL for its JSONB support" -> "PostgreSQL"
    cuts: list[_Unit] = []  # each sentence as it was before a cut, to put back in step 4 if room frees up
    for shorten in (_trim_elaboration, lambda u: u._replace(text=_strip_reason(u.text))):
        for i, unit in enumerate(units):
            if total <= max_words:
                break
            units[i] = shorten(unit)
            total += _words_in(units[i]) - _words_in(unit)
            if units[i] != unit:
                cuts.append(unit)
    # 3. whole sentences, the ones worth least per word first (the older among equals).
    #    A sentence is worth its score, plus a bonus for each value nobody else states;
    #    the last sentence that still holds a value is dropped only when nothing else can go.
    def values(u: _Unit) -> set[str]:
        return {t[2].lower() for t in u.triples}

    said = Counter(v for u in units for v in values(u))

    def per_word(u: _Unit) -> float:
        return (u.score + 0.3 * sum(said[v] == 1 for v in values(u))) / max(_words_in(u), 1)

    order, last_holders = sorted(units, key=lambda u: (per_word(u), u.order)), []
    for unit in order:
        if any(said[v] == 1 for v in values(unit)):
            last_holders.append(unit)
        elif total > max_words:
            drop([unit], stop=lambda u: False)
            said.subtract(values(unit))
    drop(sorted(last_holders, key=lambda u: (per_word(u), u.order)), stop=lambda u: False)
    # 4. a dropped sentence may have freed room: undo step 2's cuts, the last cut first, while they fit
    for before in reversed(cuts):
        for i, unit in enumerate(units):
            if unit.order == before.order and total + _words_in(before) - _words_in(unit) <= max_words:
                total += _words_in(before) - _words_in(unit)
                units[i] = before
    # 5. still too long (one huge sentence): cut words, and say so with "…"
    if total > max_words:
        words = " ".join(u.text for u in units).split()[:max_words]
        words[-1] = words[-1].rstrip(".,;:") + "…"
        units = [_Unit(" ".join(words), 0.0, (), 0, "summary")]
    return units


def summarize_rules(text: str, previous_summary: str = "", max_words: int = 120) -> str:
    """Merge new conversation ``text`` into ``previous_summary``, in at most ``max_words`` words.

    Keeps decisions, preferences, names, numbers and their reasons; drops small
    talk and questions; a newer value replaces an older one ("switch to MySQL"
    retires the PostgreSQL sentence). ``text`` may be a transcript with
    ``user:`` / ``assistant:`` line prefixes.

    Taught in notebooks/03_summary_memory.ipynb.
    """
    text = _normalise(require_text("text", text, allow_empty=True))
    previous_summary = _normalise(require_text("previous_summary", previous_summary, allow_empty=True))
    require_positive_int("max_words", max_words)
    units: list[_Unit] = []
    for sentence in split_sentences(previous_summary):
        units.append(_make_unit(sentence if sentence[-1] in ".!?" else sentence + ".", "summary", len(units)))
    for role, line, _ in _lines(text):
        role = role or "user"
        for sentence in split_sentences(line):
            if not any(c.isalpha() for c in sentence):
                continue
            facts = rule_triples(f"{role}: {sentence}")
            if _salient(sentence, role, facts):
                rewritten = _rewrite(sentence, role)
                if rewritten:
                    # The facts must speak like the text they belong to ("my sister's" ->
                    # "User's sister's"), or nothing can check that a trimmed sentence still holds them.
                    facts = [t._replace(value=_third_person_words(t.value, role)) for t in facts]
                    units.append(_make_unit(rewritten, role, len(units), facts))
    # The assistant repeating what the user decided adds words, not facts.
    stated = {t for u in units if u.role != "assistant" for t in u.triples}
    units = [u for u in units if u.role != "assistant" or set(u.triples) - stated]
    # A later value for the same (entity, attribute) retires an earlier sentence
    # whose facts have all been replaced. Walk backwards, remembering the latest values.
    latest: dict[tuple[str, str], str] = {}
    kept: list[_Unit] = []
    for unit in reversed(units):
        replaced = unit.triples and all((e, a) in latest and latest[(e, a)] != v for e, a, v in unit.triples)
        if not replaced:
            kept.append(unit)
        for e, a, v in unit.triples:
            latest.setdefault((e, a), v)
    seen, unique = set(), []
    for unit in reversed(kept):
        if unit.text.lower() not in seen:
            seen.add(unit.text.lower())
            unique.append(unit)
    return " ".join(u.text for u in _fit(unique, max_words))
