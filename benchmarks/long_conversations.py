"""The bundled long conversations, written as text: ``teachmem/lab/data/long_conversations.json``.

Each conversation runs over eight sessions spread across months, in the LoCoMo format
(``teachmem.lab.locomo``); its questions ask about the first four sessions, so that a store has to
find what was said months before the question. Run ``python benchmarks/long_conversations.py`` to
write the JSON file from the text below, ``--check`` to compare the file with it instead.

A script is a list of sessions: ``## <date>`` starts one (the date as LoCoMo writes it, such as
``4:30 pm on 12 January, 2025``), then one ``Speaker: text`` line per turn. A line may end with
``  #tag`` so that questions can name it as evidence. A question is ``(question, answer, evidence
tags, kind)``; the kind is one of ``KINDS``: ``single`` (one turn answers it, in its words),
``paraphrase`` (one turn, in other words), ``temporal`` (when: the session date resolves "last
Saturday") and ``multi`` (two turns or more, sometimes sessions apart, or a value changed later).
"""
from __future__ import annotations

import json
import re
import sys
from datetime import datetime
from pathlib import Path

PATH = Path(__file__).resolve().parent.parent / "teachmem" / "lab" / "data" / "long_conversations.json"
#: LoCoMo's category numbers: 1 multi-hop, 2 temporal, 4 single-hop (a paraphrase is single-hop too).
KINDS = {"single": 4, "paraphrase": 4, "temporal": 2, "multi": 1}
_LINE = re.compile(r"(?P<speaker>[^:#]+): (?P<text>[^#]*?)(?:\s+#(?P<tag>\w+))?")

LONG_1 = """
## 4:30 pm on 12 January, 2025
Priya: Tom! Happy new year. I have news: we adopted a dog on Saturday.
Tom: No way! What kind of dog?
Priya: A rescue greyhound called Biscuit. She's four and was a racer in Ireland before the shelter took her in.  #d1_3
Tom: A greyhound in your flat? Don't they need loads of space?
Priya: Everyone says that, but they sleep twenty hours a day. She's basically a very fast sofa cushion.
Tom: Ha. How is she settling in?
Priya: She's scared of the stairs, so I carry her down every morning. Thirty kilos of nervous dog.  #d1_7
Tom: That's dedication. Anything else new?
Priya: I signed up for a pottery class at the community centre on Thursday evenings. Wheel throwing, eight weeks.  #d1_9
Tom: You always said you wanted to try that.
Priya: My resolution. My first bowl will be terrible and I will love it anyway.
Tom: I want the first terrible bowl as a present.
Priya: Deal. How was your holiday?
Tom: Quiet. Mostly my parents' house in Galway and far too much cake.  #d1_14
## 7:15 pm on 2 February, 2025
Tom: How's the pottery going?
Priya: Three weeks in. I made a lopsided mug that leaks from the handle. The teacher, Ines, says that's a rite of passage.  #d2_2
Tom: A mug that leaks is still art.
Priya: That's what I tell myself. Also I'm starting a new job in March.
Tom: What? Tell me everything.
Priya: I'm leaving the bank. I'll be a data analyst at a hospital trust in Leeds, working on waiting lists.  #d2_6
Tom: That suits you much better than the bank.
Priya: Less money, but I'll actually care about the work.
Tom: What about the commute?
Priya: Twenty-five minutes by train, and I can work from home on Fridays, which Biscuit approves of.  #d2_10
Tom: Biscuit runs your schedule now.
Priya: Entirely. She has opinions about walks at six in the morning.
Tom: My news is smaller: I finally fixed the bike I found in the shed.
Priya: The old green racer? Does it ride?
Tom: It rides. The brakes are more of a suggestion, though.
## 11:00 am on 9 March, 2025
Priya: First week at the hospital done!
Tom: How was it?
Priya: Intense. My manager, Samira, gave me the orthopaedics backlog as my first project.  #d3_3
Tom: Sounds like a big first project.
Priya: About four thousand people waiting for knee and hip operations. I'm trying to work out who has waited longest.
Tom: That's real work that matters.
Priya: It is. The spreadsheets are a horror show though.
Tom: Are you still doing pottery on Thursdays?
Priya: The eight weeks finished. I signed up for the next course, glazing this time.
Tom: And the terrible bowl?
Priya: It's drying. It'll be yours in April, as promised.
Tom: I'm clearing a shelf for it.
Priya: How's the bike?
Tom: I rode it to work twice. I'm thinking of doing a charity ride in the summer.
## 6:40 pm on 20 April, 2025
Tom: The bowl arrived! It's beautiful and it is not terrible.
Priya: It is a little terrible. The glaze ran on one side.
Tom: I'm keeping my keys in it.
Priya: Perfect use. Guess what, we're going to Japan in October.
Tom: Finally! Where?
Priya: Two weeks: Tokyo, then Kyoto, then a pottery village called Mashiko. I booked a workshop with a potter there.  #d4_6
Tom: Of course there's pottery.
Priya: Obviously. My partner, Dan, is more excited about the food.  #d4_8
Tom: Who looks after Biscuit?
Priya: My mum. She pretends she doesn't like dogs but she bought Biscuit a winter coat.  #d4_10
Tom: Greyhounds in coats are the best thing.
Priya: It's tartan. She looks like a Victorian gentleman.
Tom: I've signed up for the charity ride, by the way. London to Brighton in June.  #d4_13
Priya: On the bike with suggestion brakes?
Tom: New brakes are on order.
## 8:05 pm on 15 June, 2025
Priya: Did you finish the ride?
Tom: I did! Fifty-four miles, six hours, and Ditchling Beacon nearly killed me.
Priya: So proud of you. How much did you raise?
Tom: Just over nine hundred pounds for the children's hospice.
Priya: Amazing. Work has been mad here.
Tom: Still the orthopaedics backlog?
Priya: We moved on to cardiology. Samira got promoted, so I report to Ben now.
Tom: Is Ben nice?
Priya: Very. He makes terrible puns in every meeting.
Tom: And Biscuit?
Priya: She learned to use the stairs on her own! No more carrying.
Tom: Biscuit is growing up.
Priya: She's also started stealing socks. Only left socks, for some reason.
Tom: A greyhound with a sock preference. Incredible.
## 9:30 am on 3 August, 2025
Tom: Summer question: are you still doing pottery?
Priya: Yes, but I moved to the Tuesday class at a studio in Headingley. The community centre closed for repairs.
Tom: Is the new teacher good?
Priya: He's great, a retired chemist called Martin. He explains glazes like chemistry experiments.
Tom: That sounds very you.
Priya: I made a set of four plates. Only one is wonky.
Tom: Progress! How's the Japan planning?
Priya: We've booked the hotels. Dan made a spreadsheet of ramen shops, sorted by distance from each hotel.
Tom: Dan is a man of priorities.
Priya: I'm learning some Japanese on an app. I can order tea and apologise.
Tom: The two most important phrases.
Priya: How about you, any holidays?
Tom: A week of camping in Snowdonia with my brother. It rained six days out of seven.
Priya: Classic Wales.
## 5:50 pm on 28 September, 2025
Priya: Two weeks until Japan and I've packed nothing.
Tom: You have a spreadsheet of ramen, you'll be fine.
Priya: Dan has the spreadsheet. I have a list of pottery shops.
Tom: Are you bringing plates back?
Priya: I'm bringing an empty suitcase just for ceramics.
Tom: How's work?
Priya: Good. Ben put me forward for a course on forecasting hospital demand.
Tom: You're going to end up running the place.
Priya: Ha, not yet. Biscuit has a new hobby, by the way: she howls when the ice cream van plays its tune.
Tom: A singing greyhound.
Priya: The neighbours are less charmed than I am.
Tom: I started volunteering at the bike repair café on Saturdays.
Priya: Fixing other people's suggestion brakes?
Tom: Exactly. Mostly punctures, though.
## 8:20 pm on 26 October, 2025
Tom: You're back! How was Japan?
Priya: Unbelievable. The workshop in Mashiko was the highlight. The potter let me throw on his kick wheel.
Tom: Did you bring back ceramics?
Priya: Eleven pieces and only one broke on the way home.
Tom: Eleven! Where will you put them?
Priya: Dan built a shelf. He was mostly happy because he ate at nine of the ramen shops on his list.
Tom: Only nine?
Priya: Two were closed for holidays. He's still upset.
Tom: How was Biscuit with your mum?
Priya: Spoiled. Mum cooked her chicken every day and now she refuses her normal food.
Tom: Greyhound holiday, greyhound consequences.
Priya: Any news from you?
Tom: I'm thinking of a longer ride next year, maybe coast to coast.
Priya: With working brakes, please.
"""

LONG_1_QUESTIONS = [
    ("What breed is Priya's dog?", 'A greyhound (a rescue racer)', ['d1_3'], "single"),
    ('Where did Biscuit race before the shelter?', 'In Ireland', ['d1_3'], "single"),
    ('Why did Priya carry her dog down every morning when she first adopted her?', 'Biscuit was scared of the stairs', ['d1_7'], "single"),
    ("On which evening was Priya's first pottery class at the community centre?", 'Thursday evenings', ['d1_9'], "single"),
    ("What was the name of Priya's first pottery teacher?", 'Ines', ['d2_2'], "single"),
    ('Where did Tom spend the holidays before January 2025?', "At his parents' house in Galway", ['d1_14'], "single"),
    ('What job did Priya take after leaving the bank?', 'Data analyst at a hospital trust in Leeds', ['d2_6'], "single"),
    ('Which day can Priya work from home?', 'Fridays', ['d2_10'], "single"),
    ("Who was Priya's first manager at the hospital?", 'Samira', ['d3_3'], "single"),
    ("What is the name of Priya's partner?", 'Dan', ['d4_8'], "single"),
    ("What did Priya's mum buy for Biscuit?", 'A tartan winter coat', ['d4_10'], "single"),
    ('Which pottery village did Priya plan to visit in Japan?', 'Mashiko', ['d4_6'], "single"),
    ('Which charity ride did Tom sign up for?', 'London to Brighton in June', ['d4_13'], "single"),
]

LONG_2 = """
## 10:15 am on 2 March, 2024
Lukas: Ama! How was the move?
Ama: Exhausting. The new flat is on Rua das Flores in Porto, fourth floor, with a tiny balcony over the river.  #d1_2
Lukas: Porto! I still can't believe you moved.
Ama: Me neither. The company let me transfer to the Porto office for two years.  #d1_4
Lukas: What are you working on there?
Ama: I'm an architect on a team restoring an old sardine cannery into a library.  #d1_6
Lukas: That sounds like a dream project.
Ama: It is. The building is from 1912 and half the roof is missing.
Lukas: How's your Portuguese?
Ama: Terrible. I take lessons twice a week with a teacher called Rosa, who laughs at my accent kindly.  #d1_10
Lukas: Kind laughter is the best laughter.
Ama: How's Berlin? Still playing in the band?
Lukas: Yes, I play bass in a jazz trio. We have a gig every second Sunday at a bar in Kreuzberg.  #d1_13
Ama: I'll come to one when I'm back.
## 9:00 pm on 21 April, 2024
Ama: I planted tomatoes on the balcony. Six plants in pots.  #d2_1
Lukas: Optimistic for April.
Ama: Porto is warmer than Berlin! They're already flowering.
Lukas: Show-off. Work still good?
Ama: We found original tiles under the plaster in the cannery office. Blue and white, hand-painted.  #d2_5
Lukas: Amazing. Will you keep them?
Ama: We're restoring them. A tile specialist from Lisbon is coming in May.
Lukas: How's Rosa?
Ama: She made me order lunch in Portuguese and I accidentally asked for a kilo of cod.
Lukas: Did you eat a kilo of cod?
Ama: I ate a lot of cod. It was delicious.
Lukas: Our trio is recording an album, by the way. Just six tracks.
Ama: Lukas! Where are you recording?
Lukas: In the drummer's garage. He put egg boxes on the walls.
## 6:30 pm on 9 June, 2024
Lukas: How are the tomatoes?
Ama: Disaster. Pigeons ate half the flowers. I've put up a net.
Lukas: Pigeons are the real enemy.
Ama: I also started running with a club from the office. We run along the river on Wednesday mornings.  #d3_4
Lukas: You, running? You used to hate it.
Ama: I still hate the first kilometre. The rest is fine.
Lukas: How long are the runs?
Ama: Eight kilometres. My colleague Tiago wants us all to do the Porto half marathon in November.  #d3_8
Lukas: Will you?
Ama: I said yes before I thought about it.
Lukas: The album is finished! We're calling it Egg Box Sessions.
Ama: That's the best album name I have ever heard.
Lukas: We'll release it online in September.
Ama: I'll listen to it on my runs.
## 8:45 pm on 14 July, 2024
Ama: My sister Efua is visiting next week.  #d4_1
Lukas: From Accra?
Ama: From London now; she's a nurse there. It's her first time in Portugal.
Lukas: Where will you take her?
Ama: The cannery, obviously, and then a train up the Douro valley.
Lukas: And port wine tasting?
Ama: Efua doesn't drink, so we'll do the boat trip instead.
Lukas: How's the running?
Ama: I did twelve kilometres last Wednesday. My knees complained.
Lukas: Get good shoes.
Ama: Tiago made me buy proper running shoes. Bright orange.
Lukas: The trio has a new gig: a summer festival by a lake near Potsdam.
Ama: Fancy! Will you play the egg box songs?
Lukas: All six of them.
## 7:10 pm on 1 September, 2024
Lukas: Egg Box Sessions is out!
Ama: I listened three times. Track four is my favourite.
Lukas: That one was recorded at three in the morning.
Ama: You can hear it. In a good way.
Lukas: How was Efua's visit?
Ama: Wonderful. She loved the boat trip and bought six kilos of custard tarts to take home.
Lukas: Six kilos?
Ama: For the whole ward. Nurses deserve custard tarts.
Lukas: And the cannery?
Ama: The tiles are back on the walls. The tile specialist, Helena, did incredible work.
Lukas: When does the library open?
Ama: Next spring, if the roof arrives on time.
Lukas: Roofs never arrive on time.
Ama: That's what I keep telling my boss.
## 11:30 am on 20 October, 2024
Ama: Four weeks until the half marathon.
Lukas: Are you ready?
Ama: I ran eighteen kilometres on Sunday. Tiago says I'm ready; my knees disagree.
Lukas: Listen to Tiago, not your knees.
Ama: Rosa says I should say it in Portuguese so my knees understand.
Lukas: How's your Portuguese now?
Ama: Better. I had a whole meeting with the builders in Portuguese and only said one wrong word.
Lukas: Which word?
Ama: I said the roof was pregnant instead of late. Everyone was very kind.
Lukas: That's amazing.
Ama: How's Berlin?
Lukas: Cold. The trio is playing at a wedding in December; the bride is our drummer's sister.
Ama: Family gigs are the hardest.
Lukas: They asked for a jazz version of a pop song. We're suffering.
## 5:00 pm on 24 November, 2024
Lukas: Did you run the half marathon?
Ama: I did! Two hours and four minutes.
Lukas: Congratulations! How do you feel?
Ama: Proud and unable to walk down stairs.
Lukas: The fourth-floor flat must be fun.
Ama: I live on the balcony now. The tomatoes are long gone, but I planted winter herbs.
Lukas: What herbs?
Ama: Coriander, parsley and mint. The pigeons ignore them.
Lukas: Finally a win against the pigeons.
Ama: Tiago wants us to do a full marathon next year. I said absolutely not.
Lukas: You said that about the half too.
Ama: Fair point. Are you coming home for Christmas?
Lukas: To my parents in Leipzig, after the wedding gig.
Ama: I'm flying to London to spend it with Efua.
## 8:00 pm on 29 December, 2024
Ama: Merry Christmas, a bit late. How was the wedding gig?
Lukas: Better than feared. The jazz pop song got people dancing.
Ama: Told you.
Lukas: How was London?
Ama: Grey and lovely. Efua and I cooked our grandmother's groundnut soup for Christmas dinner.
Lukas: That sounds perfect.
Ama: It was. Efua's colleagues still talk about the custard tarts.
Lukas: Legendary tarts. What's next for you?
Ama: The roof finally arrived, so the cannery library might open in April.
Lukas: And running?
Ama: I'm taking January off. My orange shoes need a rest.
Lukas: My new year plan is to write songs in Portuguese to impress you.
Ama: Rosa will want to check the grammar.
Lukas: I'll send her the lyrics.
"""

LONG_2_QUESTIONS = [
    ("On which street is Ama's flat in Porto?", 'Rua das Flores', ['d1_2'], "single"),
    ("How long is Ama's transfer to the Porto office?", 'Two years', ['d1_4'], "single"),
    ("What building is Ama's team restoring?", 'An old sardine cannery, into a library', ['d1_6'], "single"),
    ('Who teaches Ama Portuguese?', 'Rosa', ['d1_10'], "single"),
    ('What instrument does Lukas play in the trio?', 'Bass', ['d1_13'], "single"),
    ("How often does Lukas's trio have a gig in Kreuzberg?", 'Every second Sunday', ['d1_13'], "single"),
    ('How many tomato plants did Ama put on her balcony?', 'Six', ['d2_1'], "single"),
    ("What did Ama's team find under the plaster in the cannery office?", 'Original blue and white hand-painted tiles', ['d2_5'], "single"),
    ("On which morning does Ama's running club run?", 'Wednesday mornings', ['d3_4'], "single"),
    ('Which race did Tiago want the running club to do?', 'The Porto half marathon in November', ['d3_8'], "single"),
    ("What is the name of Ama's sister?", 'Efua', ['d4_1'], "single"),
]

LONG_3 = """
## 3:20 pm on 6 May, 2023
Sofia: Kenji, I did it. I signed the lease for the bakery.
Kenji: Sofia! Where is it?
Sofia: On the corner of Mill Lane in Bristol, next to the launderette. It used to be a shoe repair shop.  #d1_3
Kenji: What will you call it?
Sofia: Crumb and Kettle. Sourdough, cardamom buns and proper tea.  #d1_5
Kenji: I love it. When do you open?
Sofia: If the oven arrives, in August. It's a second-hand deck oven from a bakery in Lyon.  #d1_7
Kenji: A French oven for a Bristol bakery.
Sofia: It weighs a tonne. Literally a tonne.
Kenji: How are you paying for it all?
Sofia: Savings and a small loan from my aunt Lucia, who ran a bakery in Naples for thirty years.  #d1_11
Kenji: So baking is in the family.
Sofia: She gave me her starter too. It's older than me and it's called Nonna.  #d1_13
Kenji: A sourdough starter with a name. Of course.
Sofia: How's the PhD?
Kenji: Slow. I'm studying how coral reefs recover after heatwaves, and the reef hasn't read my plan.  #d1_16
## 9:45 pm on 18 June, 2023
Kenji: Any news on the oven?
Sofia: It's on a lorry somewhere in France. How's the reef?
Kenji: I'm going to Okinawa in September for three months of fieldwork.  #d2_3
Sofia: Three months diving in Okinawa? Poor you.
Kenji: Counting coral polyps underwater for eight hours a day. It's less glamorous than it sounds.
Sofia: It sounds exactly as glamorous as it sounds.
Kenji: My grandmother lives near Naha, so I'll stay with her on weekends.  #d2_7
Sofia: She'll feed you well.
Kenji: She makes the best goya champuru. Bitter melon stir-fry.
Sofia: I need the recipe for the bakery. Maybe not.
Kenji: How are the cardamom buns?
Sofia: I'm testing a new version with orange zest. Version nineteen.
Kenji: Nineteen versions!
Sofia: My flatmate, Georgie, has eaten all of them and is my official taster.  #d2_14
## 10:00 am on 13 August, 2023
Sofia: The oven arrived and we open on Saturday!
Kenji: Congratulations! How did you get a tonne of oven inside?
Sofia: Six men, a crane and a lot of swearing. The door frame had to come out.
Kenji: Worth it?
Sofia: The first loaves came out perfect. Nonna the starter is very happy.
Kenji: I'll be in Okinawa for the opening, I'm sorry.
Sofia: Send me a photo of coral for the wall.
Kenji: Deal. I leave on the first of September.
Kenji: Who's helping in the bakery?
Sofia: I hired one baker, Malik. He trained in a hotel kitchen and gets up at three without complaining.  #d3_10
Kenji: A hero.
Sofia: Opening hours are seven to two, closed on Mondays.  #d3_12
Kenji: Bakers' hours.
Sofia: I've forgotten what evenings are.
## 8:30 pm on 24 September, 2023
Kenji: Greetings from Okinawa! The water is thirty degrees.
Sofia: That's terrifying for coral, isn't it?
Kenji: It is. We've seen a lot of bleaching this year. Some reefs are recovering, though.
Sofia: How's your grandmother?
Kenji: She's taught me to make goya champuru. Mine is worse than hers.
Sofia: Everyone's is worse than their grandmother's.
Kenji: How's Crumb and Kettle?
Sofia: Busy! We sell out of cardamom buns by ten most days.
Kenji: Bake more buns.
Sofia: The oven is full. I'm thinking about a second shift.
Kenji: Is Malik coping?
Sofia: He's brilliant. He invented a rye loaf with fennel seeds that people queue for.
Kenji: Put it on the wall next to my coral photo.
Sofia: The coral photo is already up. Customers ask about it.
## 7:00 pm on 29 October, 2023
Sofia: Georgie is moving out.
Kenji: Oh no, your taster!
Sofia: She got a job in Edinburgh. I'll live alone for the first time.
Kenji: You'll have a quiet flat at least.
Sofia: I'm at the bakery at five anyway. The flat is just for sleeping.
Kenji: I've been diving every day. We tagged two hundred coral colonies this month.
Sofia: Two hundred! Do they have names too?
Kenji: Numbers only. Science is less fun than baking.
Sofia: Aunt Lucia came to visit the bakery.
Kenji: What did she think?
Sofia: She said the sourdough was good and the focaccia needs more olive oil. Which means she loved it.
Kenji: High praise from a Naples baker.
Sofia: She stayed a week and worked every morning shift.
Kenji: Once a baker, always a baker.
## 4:15 pm on 10 December, 2023
Kenji: I'm back in Bristol!
Sofia: Welcome home! Come for a bun.
Kenji: Tomorrow morning. Are they still sold out by ten?
Sofia: Now by eleven: we started a second shift, so we bake twice as much.
Kenji: Who works the second shift?
Sofia: A new baker, Priyanka. She makes pastries like a jeweller.
Kenji: The bakery is growing.
Sofia: Three of us now. How did the fieldwork end?
Kenji: Better than expected. Half the tagged colonies show signs of recovery.
Sofia: That's good news for the reef.
Kenji: And for my thesis. My supervisor was almost smiling.
Sofia: Christmas plans?
Kenji: Staying here and writing. My grandmother sent me a box of sweet potato cakes.
Sofia: We're doing panettone for Christmas. Aunt Lucia's recipe.
## 9:00 am on 21 January, 2024
Sofia: We sold four hundred panettone in December.
Kenji: Four hundred! Was Lucia's recipe a success?
Sofia: Lucia came back to help and we baked through the night for a week.
Kenji: How is Nonna the starter coping with all this?
Sofia: Nonna is thriving. We split her into three jars now.
Kenji: A dynasty.
Sofia: I'm exhausted though. I'm closing for a week in February.
Kenji: Where are you going?
Sofia: Naples, to see Lucia's old bakery. Someone else runs it now.
Kenji: Perfect holiday for a baker.
Sofia: How's the writing?
Kenji: Two chapters done. The coral data is better than the coral photos.
Sofia: Your photo is still the most popular thing on our wall.
Kenji: I'll take that over a good review.
## 6:45 pm on 25 February, 2024
Sofia: Naples was magic.
Kenji: Tell me about Lucia's old bakery.
Sofia: The same oven is still there, from 1961. The new owner let me bake a batch in it.
Kenji: Full circle.
Sofia: I cried a bit. Then I ate six sfogliatelle.
Kenji: Very reasonable.
Sofia: Back in Bristol, Malik ran everything perfectly. He added a new seeded loaf.
Kenji: Malik deserves a raise.
Sofia: He got one, and a new title: head baker.
Kenji: I submitted my third chapter.
Sofia: How many to go?
Kenji: Two. I'll be done by summer if the reef cooperates.
Sofia: The reef has done its part. Now it's your turn.
Kenji: Thanks. I'll write better with a cardamom bun.
"""

LONG_3_QUESTIONS = [
    ("Where is Sofia's bakery?", 'On the corner of Mill Lane in Bristol, next to the launderette', ['d1_3'], "single"),
    ("What is the name of Sofia's bakery?", 'Crumb and Kettle', ['d1_5'], "single"),
    ("Where did Sofia's deck oven come from?", 'A bakery in Lyon (second-hand)', ['d1_7'], "single"),
    ('Who lent Sofia money for the bakery?', 'Her aunt Lucia', ['d1_11'], "single"),
    ("What is the name of Sofia's sourdough starter?", 'Nonna', ['d1_13'], "single"),
    ('What does Kenji study for his PhD?', 'How coral reefs recover after heatwaves', ['d1_16'], "single"),
    ('Where did Kenji do three months of fieldwork?', 'Okinawa', ['d2_3'], "single"),
    ("Where does Kenji's grandmother live?", 'Near Naha', ['d2_7'], "single"),
    ("Who was Sofia's official taster?", 'Her flatmate Georgie', ['d2_14'], "single"),
    ('Who was the first baker Sofia hired?', 'Malik', ['d3_10'], "single"),
    ('On which day is Crumb and Kettle closed?', 'Mondays', ['d3_12'], "single"),
]



def conversation(sample_id: str, speakers: tuple[str, str], script: str, questions: list) -> dict:
    """One conversation in the LoCoMo format, from its script and questions (see the module docstring)."""
    conv: dict = {"speaker_a": speakers[0], "speaker_b": speakers[1]}
    tags: dict[str, str] = {}
    session, turns = 0, []
    for line in script.strip().splitlines():
        if line.startswith("## "):
            session += 1
            datetime.strptime(line[3:], "%I:%M %p on %d %B, %Y")      # a date LoCoMo's way, or ValueError
            conv[f"session_{session}_date_time"], turns = line[3:], []
            conv[f"session_{session}"] = turns
            continue
        found = _LINE.fullmatch(line)
        if found is None or found["speaker"] not in speakers or not session:
            raise ValueError(f"{sample_id}: not a turn of {speakers} in a session: {line!r}")
        dia_id = f"D{session}:{len(turns) + 1}"
        if found["tag"]:
            if found["tag"] in tags:
                raise ValueError(f"{sample_id}: the tag {found['tag']!r} is used twice")
            tags[found["tag"]] = dia_id
        turns.append({"speaker": found["speaker"], "dia_id": dia_id, "text": found["text"]})
    qa = [{"question": q, "answer": a, "evidence": [tags[t] for t in evidence], "category": KINDS[kind]}
          for q, a, evidence, kind in questions]
    return {"sample_id": sample_id, "conversation": conv, "qa": qa}


CONVERSATIONS = [
    ("long-1", ("Priya", "Tom"), LONG_1, LONG_1_QUESTIONS),
    ("long-2", ("Ama", "Lukas"), LONG_2, LONG_2_QUESTIONS),
    ("long-3", ("Sofia", "Kenji"), LONG_3, LONG_3_QUESTIONS),
]


def bank() -> list[dict]:
    """Every conversation, as the JSON file holds them."""
    return [conversation(*c) for c in CONVERSATIONS]


def kinds() -> dict[tuple[str, str], str]:
    """(sample_id, question) -> its kind, for reports per kind (the file keeps only the category)."""
    return {(sample_id, q[0]): q[3] for sample_id, _, _, questions in CONVERSATIONS for q in questions}


def main(argv: list[str]) -> int:
    text = json.dumps(bank(), indent=1, ensure_ascii=False)
    if "--check" in argv:
        same = PATH.read_text(encoding="utf-8") == text
        print(f"{PATH.name} {'matches' if same else 'differs from'} the scripts")
        return 0 if same else 1
    PATH.write_text(text, encoding="utf-8")
    print(f"wrote {PATH.name}: {len(CONVERSATIONS)} conversations")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
