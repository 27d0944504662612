"""Long multi-session conversations with questions and the turns that answer them.

An evaluation set for semantic memory retrieval, in the shape of public
long-conversation benchmarks: each dialogue turn is stored as one memory
("speaker: text"); each question lists its *evidence* turns; recall@k is the
share of evidence turns found among the k best memories.

Three conversations in different registers (two friends catching up over
months; a developer and an assistant across project sessions; two old
friends with families, houses and travel), with questions of four kinds:
single-hop, paraphrased (few words shared with the evidence), temporal
("when…") and multi-hop (two or more evidence turns).

Turns are written as ``Speaker: text`` lines; a line may end with
``  #tag`` so questions can name their evidence. ``## date`` starts a session.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Conversation:
    name: str
    turns: tuple[tuple[str, str, datetime], ...]     # (speaker, text, session date)
    questions: tuple[tuple[str, tuple[int, ...], str], ...]   # (question, evidence turn indices, kind)


NINA_OMAR = """
## 2025-03-02
Nina: Omar! It's been forever. How have you been since the move?
Omar: Hey Nina! Busy but good. We finally unpacked the last boxes last weekend, so the new place feels like home now.
Nina: That's great. I started something new too, a pottery class on Tuesday evenings at the community center.  #pottery_start
Omar: Pottery! Have you made anything yet or is it all wobbly bowls so far?
Nina: Mostly wobbly bowls, ha. The instructor says centering the clay on the wheel takes a few weeks to click.
Omar: I'd love to see one. Maybe you can make me a mug for my coffee obsession.
Nina: Deal, if it holds liquid by then. How's Layla liking kindergarten?
Omar: She loves it. Her teacher, Ms. Alvarez, says she is the best reader in the class, which made my week.  #layla_teacher
Nina: Aw, she always had her nose in a book. What else is new with you?
Omar: I signed up for the Chicago marathon in October. It'll be my first full marathon, so I'm nervous.  #marathon_signup
Nina: Wow, that's huge! Are you following a training plan?
Omar: Yeah, an eighteen week plan my running club recommended. Four runs a week, long run on Sundays.  #training_plan
Nina: I get tired just hearing that. I'll stick to walking Biscuit around the park.
Omar: How is Biscuit? Still stealing socks?
Nina: Always. He's a three year old beagle with zero shame. He ate half a sandwich off the counter yesterday.  #biscuit_breed
Omar: Classic beagle. Okay, I need to run, literally. Talk soon!
## 2025-03-23
Omar: Hey Nina, quick question. Do you know any good physiotherapists? My knee started hurting after the long runs.  #knee_pain
Nina: Oh no. My coworker swears by a clinic on Elm Street, I'll text you the name.
Omar: Thanks. I don't want to stop training this early.
Nina: Speaking of work, big news, I'm transferring to the pediatric ward at St. Mary's next month.  #pediatric_transfer
Omar: Congrats! You always said you wanted to work with kids.
Nina: I did. The night shifts in the emergency department were wearing me down after six years.  #er_years
Omar: Six years of nights, I can't imagine. You deserve some normal sleep.
Nina: Hopefully. How's the startup going?
Omar: Slowly. We are building an app that delivers bread from small local bakeries before 8 am.  #startup_idea
Nina: I would absolutely use that. Fresh croissants at my door sounds amazing.
Omar: That's the dream. We just signed our tenth bakery partner, a Portuguese place called Nata & Co.  #tenth_bakery
Nina: Ooh, pastel de nata. Okay now I'm hungry.
Omar: Haha. How is the pottery going, any mugs yet?
Nina: Not yet, but I glazed my first real bowl. It came out a deep blue and it doesn't leak!  #blue_bowl
Omar: Progress! Send me a photo.
Nina: Will do. Also my sister Leah got engaged last weekend, the wedding is in September in Vermont.  #leah_engaged
Omar: That's wonderful news, tell her congratulations from me.
## 2025-04-20
Nina: Happy Sunday! Did you do your long run today?
Omar: I did sixteen miles this morning, my longest ever. The physio gave me exercises and the knee held up fine.  #sixteen_miles
Nina: Amazing. The clinic on Elm worked out then?
Omar: Yes, strengthening exercises for my hips, apparently weak hips were the real problem.  #weak_hips
Nina: Bodies are weird. My first week on the pediatric ward was exhausting but I love it.
Omar: What's the hardest part?
Nina: Talking to scared parents. The kids are often braver than the adults honestly.  #scared_parents
Omar: I believe it. Layla is braver than me at the dentist.
Nina: Ha. Is she still into books?
Omar: Now it's dinosaurs. She wants to be a paleontologist and corrects me when I say brontosaurus.  #layla_dinosaurs
Nina: Smart kid. Biscuit had a scare this week, he swallowed a corn cob and we had to go to the emergency vet.  #biscuit_vet
Omar: Oh no, is he okay?
Nina: He's fine now, they got it out without surgery. Expensive lesson though, four hundred dollars.  #vet_cost
Omar: Ouch. Beagles, man.
Nina: I'm also planning a trip, Leah and I want to go to Lisbon in June before all the wedding chaos.  #lisbon_plan
Omar: Lisbon is beautiful. Go to the bakery that Nata & Co's owner told me about, in Belém.
Nina: Adding it to the list.
## 2025-06-15
Omar: Welcome back! How was Portugal?
Nina: Incredible. We walked up every hill in Lisbon and took a day trip to Sintra to see the colorful palace.  #sintra_trip
Omar: Did you try the famous custard tarts in Belém?
Nina: Twice in one day, no regrets. Leah bought a tile painting for her new apartment.
Omar: Nice. Things here are hectic. My mom had hip replacement surgery on Tuesday.  #mom_surgery
Nina: Oh Omar, how is she doing?
Omar: Better than expected. She's already walking with a walker and complaining about hospital food.  #mom_walker
Nina: That's a good sign. If she's complaining she's recovering.
Omar: True. I've been driving to her place every evening to help with dinner.
Nina: You're a good son. How's the marathon training going with all that?
Omar: I cut back a bit, but I ran a half marathon race two weeks ago in one hour fifty-one minutes.  #half_marathon
Nina: That's fast! You're going to crush Chicago.
Omar: Fingers crossed. Oh, and the app launched in our neighborhood last Monday, forty orders on day one.  #app_launch
Nina: Forty! That's amazing for a first day.
Omar: We were thrilled. The bakeries were sold out by seven thirty.
Nina: I finally made you that mug by the way. It's green with a wonky handle.  #green_mug
Omar: I'll treasure it. Wonky handles have character.
## 2025-08-10
Nina: Hey, are you surviving this heat?
Omar: Barely. My long runs start at 5 am now to beat the heat.
Nina: Smart. I have a question for you as a runner. I'm thinking of doing a 5k with the nurses from my ward for a children's hospital charity.  #charity_5k
Omar: Do it! A 5k is a great first race. Start with run-walk intervals.
Nina: That's what I was hoping you'd say. The race is on September 28.
Omar: I'll come cheer. Layla wants to make a sign.
Nina: That would be adorable. How is she?
Omar: She starts first grade next week and she's nervous about the bigger school.  #first_grade
Nina: She'll be fine, she makes friends everywhere.
Omar: Also big news, I started guitar lessons. My teacher is a jazz musician named Felix.  #guitar_lessons
Nina: Since when are you musical?
Omar: Since never, that's the point. My fingers hurt a lot though.
Nina: Calluses will come. Leah's wedding planning is in full swing, I'm the maid of honor.  #maid_of_honor
Omar: Have you written the speech?
Nina: Three drafts, all terrible. I'm going to tell the story of when she got lost in the corn maze.
Omar: Perfect material.
## 2025-10-19
Omar: I did it, I finished the Chicago marathon! Four hours and two minutes.  #marathon_time
Nina: OMAR! Congratulations! How do you feel?
Omar: Like I got hit by a truck, but happy. I wanted under four hours but I'll take it.
Nina: That's incredible for a first marathon. How did the knee do?
Omar: No knee pain at all, the hip exercises really saved me.
Nina: The wedding was beautiful by the way. My speech made people cry in a good way.  #wedding_speech
Omar: The corn maze story worked?
Nina: Everyone laughed and then cried. Leah hugged me for like five minutes.
Omar: Love that. How did your 5k go?
Nina: I ran the whole thing without walking! Thirty-four minutes. Our team raised two thousand dollars for the children's hospital.  #charity_result
Omar: That's awesome, Layla's sign made it onto your team's Instagram by the way.
Nina: I saw! "Go Nina Go" with a dinosaur on it, so cute.
Omar: She insisted on the dinosaur. Business update, we're expanding the app to two more neighborhoods in November.  #app_expand
Nina: You're on a roll this year.
Omar: It feels that way. How's pottery?
Nina: I'm taking an advanced wheel course now and I sold two vases at a craft fair.  #sold_vases
"""

NINA_OMAR_QUESTIONS = [
    ("What class did Nina start taking at the community center?", ["pottery_start"], "single"),
    ("Who is Layla's teacher?", ["layla_teacher"], "single"),
    ("What breed is Nina's dog?", ["biscuit_breed"], "paraphrase"),
    ("How many times a week does Omar train for the marathon?", ["training_plan"], "single"),
    ("Why did Omar need a physiotherapist?", ["knee_pain"], "single"),
    ("Which department will Nina work in after her transfer?", ["pediatric_transfer"], "paraphrase"),
    ("How long did Nina work night shifts in the emergency department?", ["er_years"], "single"),
    ("What does Omar's startup do?", ["startup_idea"], "paraphrase"),
    ("What color was the first bowl Nina glazed?", ["blue_bowl"], "single"),
    ("When is Leah's wedding and where?", ["leah_engaged"], "temporal"),
    ("What turned out to be the cause of Omar's knee problems?", ["weak_hips", "knee_pain"], "multi"),
    ("What did Biscuit swallow and how much did the vet visit cost?", ["biscuit_vet", "vet_cost"], "multi"),
    ("What does Layla want to be when she grows up?", ["layla_dinosaurs"], "paraphrase"),
    ("Which palace did Nina visit on her trip?", ["sintra_trip"], "single"),
    ("What surgery did Omar's mother have?", ["mom_surgery"], "single"),
    ("What was Omar's time in the half marathon?", ["half_marathon"], "single"),
    ("How many orders did the bakery app get when it launched?", ["app_launch"], "paraphrase"),
    ("What did the mug Nina made for Omar look like?", ["green_mug"], "single"),
    ("What instrument is Omar learning and who teaches him?", ["guitar_lessons"], "single"),
    ("What role did Nina have in her sister's wedding?", ["maid_of_honor"], "paraphrase"),
    ("How long did it take Omar to finish the Chicago marathon?", ["marathon_time"], "single"),
    ("How much money did Nina's team raise and for which cause?", ["charity_result", "charity_5k"], "multi"),
    ("What has Nina done with pottery by the autumn?", ["sold_vases", "pottery_start"], "multi"),
    ("When did Omar's bakery app launch and when is it expanding?", ["app_launch", "app_expand"], "temporal"),
    ("Which grade does Layla start after the summer?", ["first_grade"], "single"),
]

DEV_SESSIONS = """
## 2025-01-06
User: Hi! I'm starting a new backend for our recipe sharing site, codename Tidewater. I want to use FastAPI.  #fastapi
Assistant: Great choice for an async API. Which Python version are you targeting?
User: Python 3.12. The team already runs 3.12 everywhere.  #python_version
Assistant: Then you can use the newer typing features freely. How will you store recipes?
User: PostgreSQL 16, with the recipes as rows and the ingredients in a separate table.  #postgres
Assistant: Sounds good. Do you want an ORM or raw SQL?
User: SQLAlchemy 2 in async mode. I don't want to write raw SQL for every endpoint.  #sqlalchemy
Assistant: I'll sketch the models: Recipe, Ingredient and a RecipeIngredient join table with quantities.
User: Perfect. Also for tests I like pytest with verbose output and a coverage report, please keep that in mind.  #pytest_pref
Assistant: Noted. I'll add pytest-cov to the dev dependencies and configure it in pyproject.
User: And please no emojis in the log messages, our log aggregator chokes on them.  #no_emoji_logs
Assistant: Understood, plain ASCII log messages only.
User: One more thing, my teammate Priya reviews every pull request, so keep PRs small.  #priya_reviews
Assistant: Will do. I'll aim for one feature per pull request.
## 2025-01-13
User: Back on Tidewater. The recipe search endpoint is slow, about two seconds per query.  #slow_search
Assistant: Is it doing a LIKE query over the recipe titles and descriptions?
User: Yes, a double wildcard LIKE over both columns.
Assistant: That can't use a normal index. PostgreSQL full text search with a GIN index would fix it.
User: Let's do it. Can you write the migration?
Assistant: Here is an Alembic migration adding a tsvector column and a GIN index on it.  #gin_index
User: Nice, search is down to forty milliseconds now.  #search_fast
Assistant: Great improvement. Do you want ranking by relevance too?
User: Yes, rank by ts_rank, and boost matches in the title.
Assistant: Done, the title is weighted A and the description weighted B.
User: Also we decided to deploy on Fly.io, two machines in the Frankfurt region.  #flyio
Assistant: Good, I'll add a fly.toml and a health check endpoint.
User: The health check should not touch the database, just return ok.
Assistant: Agreed, a liveness check that stays cheap.  #health_check
## 2025-02-03
User: We had an incident on Friday. Timestamps on recipes were shown one hour off for users in Lisbon.  #timezone_bug
Assistant: Were the timestamps stored without a time zone?
User: Yes, naive datetimes in local server time.
Assistant: The fix is to store UTC with timestamptz columns and convert in the frontend.
User: Let's do that. Priya asked that the migration be reversible.  #reversible_migration
Assistant: Here is a migration with both upgrade and downgrade steps converting the columns.
User: Thanks. Also, users are hammering the login endpoint, we saw ten thousand attempts from one address.  #login_attack
Assistant: Let's add rate limiting. Do you have Redis available?
User: Yes, we already run Redis for the session cache.
Assistant: Then a sliding window rate limiter in Redis: five login attempts per minute per address.  #rate_limit
User: Make it ten per minute, five is too strict for people who mistype.  #rate_limit_ten
Assistant: Updated to ten attempts per minute.
User: And log blocked attempts as JSON lines please.
Assistant: Done, each blocked attempt is one JSON object with the address and a timestamp.  #json_logs
## 2025-02-24
User: Big change. Management decided we're moving from PostgreSQL to MySQL 8 because the company standardised on it.  #mysql_switch
Assistant: That affects the full text search, MySQL has its own FULLTEXT indexes with different syntax.
User: Ugh, right. How much work is it?
Assistant: The search query and the migration need rewriting; the SQLAlchemy models mostly stay the same.
User: Okay. The deadline for the MySQL migration is March 14.  #mysql_deadline
Assistant: Then let's start with the schema and the search, those are the riskiest parts.
User: Also Priya is going on parental leave next week, Marco will review PRs while she is away.  #marco_reviews
Assistant: Noted. Should I write more detailed PR descriptions for Marco since he is new to the codebase?
User: Yes please, he joined only last month.
Assistant: I'll include a short context section in each description.
User: Our CI is GitHub Actions by the way, and it takes twelve minutes per run which is annoying.  #ci_slow
Assistant: Caching the pip downloads and running tests in parallel with pytest-xdist should cut that a lot.
User: Let's try both.
Assistant: Here is the workflow with a pip cache and pytest -n auto.  #ci_cache
## 2025-03-10
User: The CI changes worked, runs take four minutes now.  #ci_four
Assistant: Three times faster, nice. How is the MySQL migration going?
User: Mostly done. The FULLTEXT search works but it doesn't handle words shorter than four characters.  #fulltext_short
Assistant: That's innodb_ft_min_token_size, the default is three for InnoDB, but the server may set it to four.
User: Our DBA set it to four. Can we lower it?
Assistant: Yes, set it to two in the server config and rebuild the FULLTEXT index.
User: Okay, I'll ask the DBA. Another thing, we want image uploads for recipes.  #image_uploads
Assistant: Store the images in object storage, not in the database. Do you use S3?
User: We use Cloudflare R2 since it has no egress fees.  #r2
Assistant: R2 is S3 compatible, so boto3 works. I'll write a presigned upload URL endpoint.
User: Limit uploads to five megabytes and only JPEG and PNG.  #upload_limits
Assistant: Done, the endpoint checks the content type and the size before signing.
User: Great. Oh and the mobile team wants the API versioned, so everything should move under a v1 prefix.  #api_v1
Assistant: I'll add an APIRouter with prefix /v1 and keep the old paths as redirects for a month.
## 2025-04-07
User: Hi again. We shipped the MySQL migration two days late but without downtime.  #migration_shipped
Assistant: Congratulations, zero downtime is the part that matters.
User: Now I'd like to add recipe recommendations, similar recipes at the bottom of each page.  #recommendations
Assistant: Start simple: ingredients overlap with a Jaccard score, precomputed nightly.
User: Nightly is fine. Run it as a cron job on Fly.io?
Assistant: Fly.io supports scheduled machines, I'll add a daily schedule at 3 am UTC.  #nightly_job
User: Also, how should I set up tests for the recommendation code?
Assistant: Unit tests with small hand-made recipe sets where you know the expected neighbours, in pytest.
User: Good. Marco also asked whether we should switch to Poetry for dependencies.  #poetry_question
Assistant: You already use pyproject with pip-tools; Poetry would add a lockfile format everyone must learn.
User: Let's stay with pip-tools then.  #stay_piptools
Assistant: Agreed, fewer moving parts.
"""

DEV_QUESTIONS = [
    ("Which web framework is the backend built with?", ["fastapi"], "paraphrase"),
    ("What Python version does the team use?", ["python_version"], "single"),
    ("Which ORM did we pick?", ["sqlalchemy"], "paraphrase"),
    ("How should I set up tests?", ["pytest_pref"], "paraphrase"),
    ("Are emojis allowed in logs?", ["no_emoji_logs"], "single"),
    ("Who reviews pull requests?", ["priya_reviews", "marco_reviews"], "multi"),
    ("Why was search slow and how fast is it after the fix?", ["slow_search", "search_fast"], "multi"),
    ("Where is the API deployed?", ["flyio"], "paraphrase"),
    ("What did the health check need to avoid?", ["health_check"], "single"),
    ("What bug affected users in Lisbon?", ["timezone_bug"], "single"),
    ("How many login attempts per minute are allowed?", ["rate_limit_ten"], "single"),
    ("Why did the project change databases?", ["mysql_switch"], "single"),
    ("When is the MySQL migration due?", ["mysql_deadline"], "temporal"),
    ("How long did a CI run take before and after caching?", ["ci_slow", "ci_four"], "multi"),
    ("Why didn't search find short words after the move to MySQL?", ["fulltext_short"], "single"),
    ("Where are recipe photos stored?", ["r2", "image_uploads"], "paraphrase"),
    ("What file size and formats are accepted for uploaded pictures?", ["upload_limits"], "paraphrase"),
    ("What URL prefix does the mobile team need?", ["api_v1"], "single"),
    ("How late was the database migration?", ["migration_shipped"], "temporal"),
    ("When does the recommendation job run?", ["nightly_job"], "temporal"),
    ("Which dependency tool did we decide to keep?", ["stay_piptools", "poetry_question"], "multi"),
    ("Which log format do blocked login attempts use?", ["json_logs"], "single"),
]

GRACE_TOMAS = """
## 2024-09-08
Grace: Tomás! I saw the photos of the house, it looks like it needs a lot of love.
Tomás: It really does. We closed last month on a 1920s farmhouse outside Asheville, and half the floors are rotten.  #farmhouse
Grace: A real fixer upper then. Are you doing the work yourself?
Tomás: The design, yes, I am an architect after all. The structural work goes to a contractor.  #architect
Grace: That makes sense. School started again for me, I have thirty-two sixth graders this year.  #sixth_graders
Tomás: Thirty-two! How do you learn all the names?
Grace: Seating chart and lots of mistakes the first week. They're a sweet group though.
Tomás: Mateo started kindergarten too, he cried the first day and then didn't want to leave.  #mateo_kinder
Grace: That's exactly how it goes. Is he still crazy about soccer?
Tomás: Obsessed. He plays in a Saturday league and his team is called the Green Hornets.  #green_hornets
Grace: Adorable. I have news as well, I'm finally learning Japanese, I take an online class twice a week.  #japanese_class
Tomás: For the trip you always talk about?
Grace: Exactly, I want to go to Kyoto next spring during cherry blossom season.  #kyoto_plan
Tomás: You'll love it. Start saving now, it gets expensive in blossom season.
## 2024-10-20
Grace: How is the farmhouse coming along?
Tomás: Slowly. The contractor found termite damage in two beams, so that delayed everything by three weeks.  #termites
Grace: Oh no. Is it safe?
Tomás: It is now, they replaced the beams with reclaimed oak from an old barn nearby.  #reclaimed_oak
Grace: That sounds beautiful actually.
Tomás: It will be. How are your sixth graders?
Grace: Mostly good. We did a science fair and one kid built a working water filter from sand and charcoal.  #water_filter
Tomás: That's impressive for an eleven year old.
Grace: I was so proud. Also I adopted a cat! A gray tabby from the shelter, I named her Miso.  #miso_adopt
Tomás: Miso, like the soup? Perfect for someone learning Japanese.
Grace: Exactly my thinking. She sleeps on my keyboard while I grade papers.
Tomás: Cats always know where you need to work.
Grace: How is the climbing going? You were going to the gym every week.
Tomás: I sprained my ankle bouldering two weeks ago, so I'm taking a break.  #ankle_sprain
Grace: Ouch, rest it properly this time.
Tomás: Yes, teacher. My dad turns seventy in December and we're planning a big party.  #dad_seventy
Grace: Seventy! Where will the party be?
Tomás: At the farmhouse if the kitchen is done, otherwise at my sister's place in Charlotte.  #party_location
## 2024-12-15
Tomás: The party was at the farmhouse after all, the kitchen was finished two days before.  #party_farmhouse
Grace: Amazing timing! How was it?
Tomás: Wonderful. Forty people, my dad cried during the slideshow of old family photos.  #slideshow
Grace: That sounds so special. What did you cook?
Tomás: My grandmother's mole recipe, it took two days to make.  #mole
Grace: I'm jealous. I spent the weekend grading essays about the water cycle.
Tomás: Ha. How's Miso?
Grace: She knocked the Christmas tree over twice. I moved all the glass ornaments to a high shelf.  #tree_knocked
Tomás: Cats versus Christmas trees is a classic battle.
Grace: My Japanese teacher says I'm ready for the second level course in January.  #japanese_level2
Tomás: Subarashii! See, I know one word.
Grace: Ha, you're getting there. I booked the flights to Osaka for the end of March.  #osaka_flights
Tomás: So it's really happening! How long will you stay?
Grace: Two weeks, one in Kyoto and a few days in Nara and Tokyo.  #two_weeks
## 2025-02-09
Grace: Help, I need your architect brain. My landlord is selling my building, so I have to move by May.  #must_move
Tomás: Oh no. Are you going to rent again or buy?
Grace: I'm thinking of buying a small condo near the school. Any advice on what to look for?
Tomás: Check the building's reserve fund, the roof age, and whether there's any special assessment coming.  #condo_advice
Grace: Reserve fund, roof, assessments. Writing that down.
Tomás: Also look at the windows, old single pane windows make winter heating bills brutal.
Grace: Good point, my current place is freezing. How is your ankle?
Tomás: Healed. I'm back at the climbing gym and I finally sent a V5 problem last week.  #v5
Grace: I have no idea what that means but congratulations!
Tomás: It's a difficulty grade, a hard one for me. Mateo wants to try climbing too now.
Grace: Of course he does. Does he still play soccer?
Tomás: Indoor soccer for the winter, the Green Hornets won their last three games.
Grace: Go Hornets! Oh and our book club is reading a novel by Haruki Murakami this month, Kafka on the Shore.  #book_club
Tomás: That one's strange. Do you like it?
Grace: I like the talking cats, obviously.
## 2025-04-13
Tomás: You're back! How was Japan?
Grace: A dream. The cherry blossoms in Kyoto peaked the week I was there, the Philosopher's Path was pink everywhere.  #blossoms
Tomás: Perfect timing. Did your Japanese hold up?
Grace: Better than I expected. I ordered food and asked for directions, and a grandmother in Nara complimented my accent.  #nara_compliment
Tomás: That's the best review you can get.
Grace: The deer in Nara were a bit aggressive though, one ate my map.  #deer_map
Tomás: Ha! Sounds like the deer won that round.
Grace: Exactly. And I have news, I put an offer on a condo three blocks from school and they accepted it!  #condo_offer
Tomás: Congratulations! Did you check the reserve fund?
Grace: I did, it's healthy, and the roof was replaced in 2021.  #roof_2021
Tomás: You listened! I'm proud.
Grace: Moving day is May 3. Miso is going to hate it.  #moving_day
Tomás: Cats and moves, another classic battle. We're doing our own move too, into the farmhouse finally in June.  #farmhouse_move
Grace: After all that work! You must be so excited.
Tomás: Very. Mateo already picked the room with the round window.
## 2025-06-22
Grace: How is farmhouse life?
Tomás: Loud with birds at 5 am but I love it. We planted a vegetable garden with tomatoes and peppers.  #garden
Grace: Living the dream. My condo is all unpacked and Miso has claimed the sunny windowsill.  #miso_windowsill
Tomás: That's a good sign. How did the school year end?
Grace: Bittersweet, my sixth graders gave me a card signed by everyone and a bag of Japanese candy.  #card_candy
Tomás: They knew you well. What are your summer plans?
Grace: I'm teaching a summer science camp for two weeks in July, we'll build rockets.  #science_camp
Tomás: Mateo would love that, can kindergartners join?
Grace: It's for ages eight to twelve, sorry. Maybe in a few years.
Tomás: Fair. My dad is visiting next month to help build a chicken coop.  #chicken_coop
Grace: Chickens! You're becoming real farmers.
Tomás: Six hens, Mateo already named them all after soccer players.  #hens_names
"""

GRACE_TOMAS_QUESTIONS = [
    ("What kind of house did Tomás buy?", ["farmhouse"], "single"),
    ("What is Tomás's job?", ["architect"], "paraphrase"),
    ("How many students does Grace teach?", ["sixth_graders"], "paraphrase"),
    ("What is the name of Mateo's soccer team?", ["green_hornets"], "single"),
    ("Which language is Grace studying?", ["japanese_class"], "paraphrase"),
    ("What damage did the contractor find in the house?", ["termites"], "single"),
    ("What wood replaced the damaged beams?", ["reclaimed_oak", "termites"], "multi"),
    ("What did a student build for the science fair?", ["water_filter"], "single"),
    ("What pet did Grace adopt and what is it called?", ["miso_adopt"], "paraphrase"),
    ("How did Tomás get injured?", ["ankle_sprain"], "paraphrase"),
    ("Where was Tomás's father's birthday party held?", ["party_farmhouse", "party_location"], "multi"),
    ("What dish did Tomás cook for the party?", ["mole"], "paraphrase"),
    ("What did Miso do to the Christmas tree?", ["tree_knocked"], "single"),
    ("When is Grace flying to Japan and how long is the trip?", ["osaka_flights", "two_weeks"], "temporal"),
    ("Why does Grace have to move?", ["must_move"], "single"),
    ("What should Grace check before buying a condo?", ["condo_advice"], "single"),
    ("What climbing grade did Tomás reach?", ["v5"], "single"),
    ("Which book is Grace's book club reading?", ["book_club"], "single"),
    ("What happened with the deer in Nara?", ["deer_map"], "single"),
    ("Where is Grace's new condo and when does she move in?", ["condo_offer", "moving_day"], "multi"),
    ("When was the condo roof replaced?", ["roof_2021"], "temporal"),
    ("What did Tomás plant at the farmhouse?", ["garden"], "paraphrase"),
    ("What gift did Grace's class give her at the end of the year?", ["card_candy"], "paraphrase"),
    ("What will the kids build at the summer camp?", ["science_camp"], "single"),
    ("How many chickens will Tomás have and who named them?", ["hens_names", "chicken_coop"], "multi"),
]

_LINE = re.compile(r"^(?P<speaker>[^:]+): (?P<text>.*?)(?:\s+#(?P<tag>\w+))?$")


def _parse(name: str, script: str, questions: list) -> Conversation:
    turns, tags, date = [], {}, None
    for line in script.strip().splitlines():
        if line.startswith("## "):
            date = datetime.fromisoformat(line[3:].strip())
            continue
        m = _LINE.match(line)
        if m["tag"]:
            tags[m["tag"]] = len(turns)
        turns.append((m["speaker"], m["text"], date))
    qs = tuple((q, tuple(tags[t] for t in evidence), kind) for q, evidence, kind in questions)
    return Conversation(name, tuple(turns), qs)


CONVERSATIONS = (
    _parse("friends_nina_omar", NINA_OMAR, NINA_OMAR_QUESTIONS),
    _parse("dev_tidewater", DEV_SESSIONS, DEV_QUESTIONS),
    _parse("friends_grace_tomas", GRACE_TOMAS, GRACE_TOMAS_QUESTIONS),
)
