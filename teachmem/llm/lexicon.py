"""What the rules know about words: a lexicon of technologies, and the word lists of the personal rules.

The technology lexicon maps every alias ("postgres", "Postgres", "postgresql")
to one canonical name ("PostgreSQL") and to the fact it states
(``Project.database``). The word lists say which words are *not* names,
employers or wishes, which are jobs and which are diets.
"""
from __future__ import annotations

import re

from teachmem.llm.phrases import each

__all__ = ["TECH_LOOKUP", "CATEGORY_RE", "tech_lexicon", "tech_matches", "tech_attribute",
           "NOT_NAMES", "DIETS", "NOT_ATTRIBUTES", "VAGUE_STARTS", "JOBS", "NOT_EMPLOYERS", "NOT_WANTS",
           "BUDGET_FUNCTION_WORDS"]

# ---------------------------------------------------------------------------
# The technology lexicon: aliases -> (canonical name, entity, attribute)
# ---------------------------------------------------------------------------
# A leading "!" marks an alias matched case-sensitively, because in lower case
# it is an everyday word ("express delivery", "in the spring", "rust").
# Each category names the fact it states: React is the project's "framework",
# an auth method belongs to the "API" entity.

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
    "auth": ("API", "auth_method", "auth authentication authenticate login log_in sign-in sign_in signin", {
        "JWT": "jwt jwts json_web_token json_web_tokens", "OAuth": "oauth2 oauth_2.0 oauth_2 oauth",
        "OpenID Connect": "openid_connect oidc", "SAML": "saml", "session cookies": "session_cookies",
        "API keys": "api_keys api_key", "basic auth": "basic_auth", "magic links": "magic_links magic_link",
        "passkeys": "passkeys webauthn"}),
    "auth_provider": ("API", "auth_provider", "auth authentication authenticate login identity", {
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


def _build_lexicon() -> tuple[dict[str, tuple[str, str]], re.Pattern, re.Pattern, dict[str, list[str]]]:
    """``(alias -> (canonical, category), case-insensitive regex, case-sensitive regex, category words)``."""
    lookup: dict[str, tuple[str, str]] = {}
    ci_aliases: list[str] = []
    cs_aliases: list[str] = []
    category_words: dict[str, list[str]] = {}
    for category, (_, _, words, names) in _LEXICON.items():
        category_words[category] = [w.replace("_", " ") for w in words.split()]
        for canonical, aliases in names.items():
            for alias in aliases.split():
                sensitive = alias.startswith("!")
                alias = alias.lstrip("!").replace("_", " ")
                lookup[alias if sensitive else alias.lower()] = (canonical, category)
                (cs_aliases if sensitive else ci_aliases).append(alias)

    def alternation(aliases: list[str]) -> str:
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


TECH_LOOKUP, _TECH_CI, _TECH_CS, _CATEGORY_WORDS = _build_lexicon()
CATEGORY_RE = {c: re.compile(r"\b(?:" + "|".join(re.escape(w) for w in ws) + r")\b", re.I)
               for c, ws in _CATEGORY_WORDS.items()}


def tech_lexicon() -> dict[str, tuple[str, str]]:
    """Every technology the rules know: ``{canonical name: (entity, attribute)}``."""
    out = {}
    for canonical, category in TECH_LOOKUP.values():
        entity, attribute = _LEXICON[category][:2]
        out[canonical] = (entity, attribute)
    return dict(sorted(out.items()))


def tech_matches(clause: str) -> list[tuple[int, int, str, str]]:
    """``(start, end, canonical, category)`` for each technology named in the clause, without overlaps."""
    hits: list[tuple[int, int, str, str]] = []
    for regex, sensitive in ((_TECH_CI, False), (_TECH_CS, True)):
        for m in each(regex, clause):
            key = m.group(0) if sensitive else m.group(0).lower().replace("-", " ")
            if key not in TECH_LOOKUP:
                key = re.sub(r"[ \-]", " ", key)
            if key in TECH_LOOKUP:
                hits.append((m.start(), m.end()) + TECH_LOOKUP[key])
    hits.sort()
    kept, last_end = [], -1
    for hit in hits:                       # drop overlaps ("React Native" hides "React")
        if hit[0] >= last_end:
            kept.append(hit)
            last_end = hit[1]
    return kept


def tech_attribute(category: str, sentence: str) -> tuple[str, str]:
    """``(entity, attribute)`` for a technology of ``category`` named in ``sentence``."""
    entity, attribute = _LEXICON[category][:2]
    if category == "language":   # a project may use one language per side
        if CATEGORY_RE["frontend"].search(sentence):
            attribute = "frontend_language"
        elif CATEGORY_RE["backend"].search(sentence):
            attribute = "backend_language"
    return entity, attribute


# ---------------------------------------------------------------------------
# Word lists of the personal rules
# ---------------------------------------------------------------------------

# "I'm ___": words that follow "I'm" and are not a name.
NOT_NAMES = frozenset("""not sure thinking building also so just really very still here back done ready fine good
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

# Every way to say a diet -> the one value stored.
DIETS = {"vegetarian": "vegetarian", "vegan": "vegan", "pescatarian": "pescatarian",
         "pescetarian": "pescatarian", "flexitarian": "flexitarian", "keto": "keto", "ketogenic": "keto",
         "paleo": "paleo", "gluten-free": "gluten-free", "gluten free": "gluten-free",
         "dairy-free": "dairy-free", "dairy free": "dairy-free", "lactose-free": "lactose-free",
         "halal": "halal", "kosher": "kosher", "plant-based": "plant-based", "plant based": "plant-based",
         "low-carb": "low-carb", "low carb": "low-carb", "carnivore": "carnivore"}
# "my ___ is": things of the user's that are not facts about them.
NOT_ATTRIBUTES = frozenset("""guess point question problem issue concern thought thoughts feeling bad fault pleasure
    turn understanding impression hunch worry sense take opinion answer bet advice suggestion mistake
    plan idea hope fear main_concern bigger_problem main_question only_question first_question
    biggest_worry favorite favourite preference name""".split())
# "my X is ___": openings of a value that is a comment, not a fact.
VAGUE_STARTS = ("that ", "not ", "to ", "a bit", "kind of", "sort of", "so ", "very ", "too ", "the same",
                "pretty ", "really ", "quite ", "still ", "also ", "like ", "gonna ", "going ")
# "I'm a ___": head nouns that make the phrase an occupation ("a firmware engineer").
JOBS = frozenset("""engineer developer designer manager teacher nurse doctor student scientist analyst
    consultant writer lawyer architect accountant researcher founder freelancer programmer chef artist
    photographer musician professor pharmacist dentist marketer editor journalist intern administrator
    technician electrician plumber therapist librarian translator cto ceo cfo coo pm owner tester
    recruiter salesperson entrepreneur investor physician surgeon veterinarian vet pilot paramedic
    firefighter officer carpenter mechanic barista cook baker farmer coach trainer instructor tutor lecturer
    economist statistician mathematician physicist chemist biologist sre devops""".split())
# "I work at ___": places that are not an employer.
NOT_EMPLOYERS = frozenset("home night nights weekends weekend myself fun free night-shift".split())
# "I need a ___": passing requests, not lasting wishes.
NOT_WANTS = frozenset("help hand advice minute moment second break time hint tip idea".split())
# "___ budget": words before "budget" that do not say which budget it is.
BUDGET_FUNCTION_WORDS = frozenset("have has had a an the our my is was of with set get got total overall "
                                  "whole entire".split())
