"""The bundled long conversations, written as text: ``teachmem/lab/data/long_conversations.json``.

Each conversation runs over eight sessions spread across months, in the LoCoMo format
(``teachmem.lab.evaluation.locomo``). Most of its questions ask about the first four sessions, so that a store has to
find what was said months before the question; the last four of each conversation ask about the late
sessions (five to eight): recent events, and values that changed since an early session said otherwise,
where the late turn is the evidence and the recent value must win. Run
``python tools/long_conversations.py`` to write the JSON file from the text below, ``--check`` to
compare the file with it instead.

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
Priya: We moved on to cardiology. Samira got promoted, so I report to Ben now.  #ben
Tom: Is Ben nice?
Priya: Very. He makes terrible puns in every meeting.
Tom: And Biscuit?
Priya: She learned to use the stairs on her own! No more carrying.
Tom: Biscuit is growing up.
Priya: She's also started stealing socks. Only left socks, for some reason.
Tom: A greyhound with a sock preference. Incredible.
## 9:30 am on 3 August, 2025
Tom: Summer question: are you still doing pottery?
Priya: Yes, but I moved to the Tuesday class at a studio in Headingley. The community centre closed for repairs.  #pottery_new
Tom: Is the new teacher good?
Priya: He's great, a retired chemist called Martin. He explains glazes like chemistry experiments.  #martin
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
Priya: Two weeks until Japan and I've packed nothing.  #japan_soon
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
    ("Who is Priya's manager at the hospital now?", "Ben (Samira, her first manager, was promoted)", ["ben"],
     "single"),
    ("Where and when does Priya do pottery these days?",
     "On Tuesdays, at a studio in Headingley (the community centre closed for repairs)", ["pottery_new"],
     "paraphrase"),
    ("Who have Priya's pottery teachers been?", "Ines at the community centre, then Martin, a retired chemist",
     ["d2_2", "martin"], "multi"),
    ("When did Priya's trip to Japan start?", "Around 12 October 2025 (two weeks after 28 September)",
     ["japan_soon"], "temporal"),
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
Ama: I did! Two hours and four minutes.  #half_time
Lukas: Congratulations! How do you feel?
Ama: Proud and unable to walk down stairs.
Lukas: The fourth-floor flat must be fun.
Ama: I live on the balcony now. The tomatoes are long gone, but I planted winter herbs.
Lukas: What herbs?
Ama: Coriander, parsley and mint. The pigeons ignore them.  #herbs
Lukas: Finally a win against the pigeons.
Ama: Tiago wants us to do a full marathon next year. I said absolutely not.
Lukas: You said that about the half too.
Ama: Fair point. Are you coming home for Christmas?
Lukas: To my parents in Leipzig, after the wedding gig.
Ama: I'm flying to London to spend it with Efua.  #christmas_london
## 8:00 pm on 29 December, 2024
Ama: Merry Christmas, a bit late. How was the wedding gig?
Lukas: Better than feared. The jazz pop song got people dancing.
Ama: Told you.
Lukas: How was London?
Ama: Grey and lovely. Efua and I cooked our grandmother's groundnut soup for Christmas dinner.  #soup
Lukas: That sounds perfect.
Ama: It was. Efua's colleagues still talk about the custard tarts.
Lukas: Legendary tarts. What's next for you?
Ama: The roof finally arrived, so the cannery library might open in April.  #library_april
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
    ("What was Ama's finishing time in the Porto race?", "Two hours and four minutes", ["half_time"],
     "paraphrase"),
    ("Which herbs does Ama grow on her balcony now?", "Coriander, parsley and mint (the tomatoes are long gone)",
     ["herbs"], "single"),
    ("When is the cannery library expected to open?", "In April 2025, now that the roof has arrived",
     ["library_april"], "temporal"),
    ("Where did Ama spend Christmas 2024, and what did she cook?",
     "In London with her sister Efua; they cooked their grandmother's groundnut soup",
     ["christmas_london", "soup"], "multi"),
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
Sofia: She got a job in Edinburgh. I'll live alone for the first time.  #edinburgh
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
Sofia: Now by eleven: we started a second shift, so we bake twice as much.  #eleven
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
Sofia: I'm exhausted though. I'm closing for a week in February.  #closing
Kenji: Where are you going?
Sofia: Naples, to see Lucia's old bakery. Someone else runs it now.  #naples
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
Sofia: He got one, and a new title: head baker.  #head_baker
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
    ("How late in the morning can you still get a cardamom bun at Crumb and Kettle?",
     "Until about eleven: they sell out by eleven now that there is a second shift", ["eleven"], "paraphrase"),
    ("What is Malik's job title now?", "Head baker (he got a raise too)", ["head_baker"], "single"),
    ("When did Sofia close the bakery for her trip to Naples?", "For a week in February 2024",
     ["closing", "naples"], "temporal"),
    ("Where does Sofia's old official taster live now?", "Georgie moved to Edinburgh for a job",
     ["d2_14", "edinburgh"], "multi"),
]

LONG_4 = """
## 9:10 am on 5 February, 2024
Walter: Good morning. My doctor's letter says I need to book a diabetes review with the nurse. Can I do that here?
June: Good morning, Walter. Yes, I can book that for you. Is this your first review since the diagnosis?
Walter: It is. Dr Nwosu told me in October that I had type 2 diabetes, and this is the first check since.  #gp
June: Then it's the long appointment with the practice nurse, Carol. She'll need a fasting blood test the week before.
Walter: Fasting, so no breakfast. I can manage that if it's early.
June: The earliest blood slot is 8:10 on Tuesday the 6th. Then the review with Carol on Tuesday 13 February at 10:20. Does that suit?  #nurse_booked
Walter: Both fine. Please write them down for me, I'll never remember.
June: I'll send you a text with both. Is the mobile number ending 481 still right?
Walter: Yes. And please text rather than ring. I'm a bit deaf in my left ear these days, and I miss half of what's said on the phone.  #hearing
June: I've added a note to your record: contact by text, not by phone.
Walter: Thank you. One more thing: mornings suit me best. I fetch my granddaughter Isla from school at three, so nothing after two.  #mornings
June: Mornings only, noted. Which medicines are you on at the moment, so Carol has the list?
Walter: Just the metformin, one 500 milligram tablet with breakfast and one with dinner.  #metformin
June: Thank you. Bring the box along on the day if you can.
Walter: Will do. Pat, my wife, says I should ask about my knee too, but that can wait.
June: Mention it to Carol, she can tell you whether it needs the doctor.
## 2:30 pm on 4 March, 2024
Walter: Hello June. I saw Carol and then Dr Nwosu about the results. I want to check what happens next.
June: Hello Walter. I can see the notes. How did you find the review?
Walter: Carol was lovely. My sugar number has gone up though, the HbA1c. It was 52 in October and now it's 58.  #hba1c
June: Did the doctor change anything?
Walter: She's doubled the metformin. Two 500 tablets in the morning and two at night, so a thousand twice a day.  #dose_up
June: I'll make sure the repeat prescription shows the new dose. Which pharmacy do you use?
Walter: Boots on Station Road. They've always been good to me.  #boots
June: That's the nominated pharmacy on your record, so the new prescription goes straight there.
Walter: Good. And the knee. Dr Nwosu had a look and wants me to see a physiotherapist.
June: Yes, there's a referral to the Riverside physiotherapy clinic. The wait is about eight weeks at the moment.  #physio_referral
Walter: Eight weeks. I suppose it's not going anywhere.
June: They'll write to you with a date. Is there anything else today?
Walter: Only that the stairs are getting harder. Pat says I'm too proud to use the banister.
June: Use the banister, Walter. Pat's right.
## 11:45 am on 15 April, 2024
June: Hello Walter, you sent a message this morning about a letter?
Walter: Yes, two letters came. The first is from the physio: Riverside have given me an appointment.
June: Lovely. When is it?
Walter: Thursday 2 May at 9:30, with a Mr Ben Adeyemi.  #physio_booked
June: Ben is very good, lots of our patients see him. Wear loose trousers so he can look at the knee.
Walter: I'll find some. The second letter says I can have the shingles jab now that I've turned seventy.  #shingles
June: That's right, you became eligible on your birthday. Would you like to book it?
Walter: Please, a morning if you have one.
June: Friday 26 April at 9:00 with Carol. I've texted you the details.
Walter: Thank you. And I have a question for the doctor, or maybe for you.
June: Go ahead.
Walter: Pat and I are going on a cruise to the Norwegian fjords in the middle of June, for our fortieth anniversary.  #cruise
June: How wonderful. Congratulations to you both.
Walter: Thank you. I'll be away two weeks, and I want enough tablets to last, and a letter listing my medicines in case a ship's doctor needs it.  #cruise_meds
June: I'll ask Dr Nwosu for the letter. Request the extra tablets a couple of weeks before you go.
## 4:20 pm on 3 June, 2024
Walter: Hello June, it's Walter again. Two things, if I may.
June: Of course. What can I do?
Walter: First, I want to change my pharmacy. Boots on Station Road have cut their hours and close at five now, so I keep missing them.
June: Which pharmacy would you like instead?
Walter: The Co-op pharmacy on Mill Road. It's open until eight and I can walk there.  #coop
June: Done: the Co-op on Mill Road is your nominated pharmacy from today.
Walter: Good. Second, the cruise. We sail from Southampton on the 15th.  #sail
June: Exciting! Did the doctor's letter arrive?
Walter: It did, thank you. Could I have three months of metformin in one go, so I don't run short?  #three_months
June: I've sent the request to Dr Nwosu. If she agrees, it goes to the Co-op within two working days.
Walter: Perfect. The physio is going well by the way. Ben gave me exercises, step-ups on the bottom stair and leg raises lying on the bed.  #exercises
June: Are they helping?
Walter: I can do the stairs without stopping now. Pat is impressed.
June: That's great progress. One more thing: a letter went out for your diabetic eye screening, at the screening van by the leisure centre on 8 August.  #eye_screening
Walter: I'll put it on the calendar. They put drops in, don't they?
June: They do, so you can't drive for a few hours afterwards. Bring someone or take the bus.
## 10:05 am on 29 July, 2024
Walter: Hello June. We're back from Norway!
June: Welcome back, Walter. How was the cruise?
Walter: Marvellous. The fjords were unreal and Pat danced every evening. I mostly ate.
June: That sounds like an anniversary to remember.
Walter: It was. The tablets lasted fine, and nobody needed the letter, thank goodness.
June: Good. Is there anything you need from us?
Walter: Pat wants to book her own blood pressure check. Can I do that for her?
June: She needs to ask herself, or give us consent for you to book for her. She can message me here.
Walter: I'll tell her. She's better with the phone than I am anyway.
June: And how's the knee since you came back?
Walter: A bit stiff after all the sitting on the ship, but I've started the exercises again.
June: Keep at them. Your eye screening is on the 8th, just a reminder.
Walter: Isla's coming with me. She wants to see the drops go in.  #isla_eyes
## 3:40 pm on 16 September, 2024
June: Hello Walter. The autumn clinics are open: would you like your flu jab and your COVID booster?
Walter: Yes please, both. Can I have them on the same day?
June: You can. Saturday 5 October, the flu clinic at the surgery, between 9 and 12. Just turn up.
Walter: A Saturday suits me, no school run.
June: How did the eye screening go?
Walter: All clear, they said. Isla was disappointed it didn't hurt more.  #eyes_clear
June: Children! The results letter will come by post as well.
Walter: Good. I've finished with Ben at the physio too. Six sessions and he discharged me.  #discharged
June: Congratulations. Keep doing the exercises at home.
Walter: Pat makes sure of it. She watches me do them with her tea.
June: Perfect supervision.
Walter: One thing, the Co-op said my next prescription is ready but the box looks different.
June: It's the same medicine from another maker. If you're worried, the pharmacist can explain.
## 9:30 am on 11 November, 2024
Walter: Morning June. It's time for my six month blood test, isn't it?
June: It is. I can book the fasting test and then the review with Carol.
Walter: Same as before then. Mornings, please.
June: Of course. Blood test Tuesday 19 November at 8:20, review with Carol on Tuesday 26 November at 10:40.  #review_nov
Walter: Thank you. I've been walking every day with Pat, thirty minutes round the park.
June: That will help the numbers. Anything else for Carol?
Walter: My feet get cold at night. Is that the diabetes?
June: Carol checks your feet at every review, so tell her then. If anything changes colour or a cut won't heal, message us straight away.
Walter: I will. Pat says I complain about everything since the cruise.
June: Nothing wrong with telling us about your feet, Walter.
Walter: Isla has asked to come to the surgery again. She thinks it's a day out.
June: She's welcome, as long as she doesn't expect drops this time.
## 1:15 pm on 13 January, 2025
Walter: Happy new year, June. A quick one about my results.
June: Happy new year, Walter. Go ahead.
Walter: Carol said my number is down to 49 now. She was very pleased and so was Dr Nwosu.  #hba1c_49
June: That's a big improvement. All that walking with Pat.
Walter: And less cake at Christmas than usual. Dr Nwosu says to keep the tablets as they are.
June: Then the repeat stays the same, going to the Co-op as before.
Walter: Good. Pat has her blood pressure check next week, she booked it herself in the end.
June: I saw. Tell her I said well done.
Walter: I will. And the knee hasn't bothered me since the autumn.
June: Wonderful. Your next review is in the summer; we'll send a text when it's time.
Walter: A text, not a call. You remembered.
June: It's on your record, Walter. Have a good week.
"""

LONG_4_QUESTIONS = [
    ("Who is Walter's GP?", "Dr Nwosu", ["gp"], "single"),
    ("How does Walter prefer the surgery to contact him, and why?",
     "By text, not by phone: he is deaf in his left ear", ["hearing"], "paraphrase"),
    ("Why can't Walter come to late appointments?", "He fetches his granddaughter Isla from school at three",
     ["mornings"], "paraphrase"),
    ("When was Walter's first diabetes review with the nurse?", "Tuesday 13 February 2024 at 10:20, with Carol",
     ["nurse_booked"], "temporal"),
    ("What was Walter's HbA1c at his first review, and what was it before?", "58, up from 52 in October",
     ["hba1c"], "single"),
    ("How much metformin does Walter take now?", "1,000 mg twice a day (doubled from 500 mg in March 2024)",
     ["dose_up"], "single"),
    ("Which pharmacies has Walter had his prescriptions sent to?",
     "Boots on Station Road, then the Co-op pharmacy on Mill Road from June 2024", ["boots", "coop"], "multi"),
    ("Who treated Walter's knee, and where?", "Ben Adeyemi, at the Riverside physiotherapy clinic",
     ["physio_booked", "physio_referral"], "multi"),
    ("Which vaccination did Walter become eligible for when he turned seventy?", "The shingles vaccine",
     ["shingles"], "paraphrase"),
    ("Why did Walter and Pat go to Norway?", "A cruise to the fjords for their fortieth wedding anniversary",
     ["cruise"], "paraphrase"),
    ("When did Walter's cruise leave, and from where?", "On 15 June 2024, from Southampton",
     ["sail"], "temporal"),
    ("What did Walter arrange with the surgery before the cruise?",
     "A doctor's letter listing his medicines and three months of metformin", ["cruise_meds", "three_months"], "multi"),
    ("What exercises did the physiotherapist give Walter?", "Step-ups on the bottom stair and leg raises on the bed",
     ["exercises"], "single"),
    ("What is Walter's latest HbA1c?", "49 (down from 58)", ["hba1c_49"], "single"),
    ("Is Walter still seeing the physiotherapist?", "No: Ben discharged him after six sessions", ["discharged"],
     "paraphrase"),
    ("When was Walter's autumn 2024 review with Carol?", "Tuesday 26 November 2024 at 10:40", ["review_nov"],
     "temporal"),
    ("How did Walter's eye screening go, and who went with him?", "All clear; his granddaughter Isla went with him",
     ["isla_eyes", "eyes_clear"], "multi"),
]

LONG_5 = """
## 9:15 am on 2 September, 2024
Dana: Morning! Kickoff notes are in the doc, but the short version: Tandem 2.0 launches on 14 November.  #launch_nov
Felipe: Ten weeks. Tight, but the shopping list side is mostly done. It's meal planning that worries me.
Dana: We're calling the meal planning feature Juniper inside the team, so nobody leaks it by accident.  #juniper
Felipe: Juniper. Fine by me. Who's doing the screens?
Dana: Aiko. She's already got the weekly planner mocked up, the drag and drop one from the offsite.  #aiko
Felipe: Good, I like her mockups. My worry is sync: two people editing the same week from two phones.
Dana: How bad is it?
Felipe: The current engine merges lists fine, but a meal plan has order. If we both move Tuesday's dinner, someone loses.  #sync_worry
Dana: Can you write up the options by Friday?
Felipe: Yes. Heads up too: I'm out the week of 7 October. My brother is getting married in Valparaíso.  #wedding
Dana: Congratulations to him! Take the whole week, we'll plan around it.
Felipe: Thanks. For the beta, do we still have the waitlist?
Dana: We do. We'll invite 300 households from it, the ones who said they cook at least four nights a week.  #beta_size
Felipe: That's a good filter. They'll actually use the planner.
## 4:40 pm on 23 September, 2024
Felipe: Bad news first. The sync rewrite is bigger than I thought. Three weeks at least, and I don't want to ship Juniper without it.
Dana: I was afraid of that. I talked to leadership this morning.
Felipe: And?
Dana: We're moving the launch to 28 January. Nobody wants a holiday launch with a shaky sync anyway.  #launch_jan
Felipe: Honestly, relief. The beta can run longer too.
Dana: Pricing is decided as well: the free tier stays, and Tandem Plus with Juniper is £3.99 a month.  #price_399
Felipe: Seems fair. What about analytics? Product wanted Mixpanel.
Dana: We're going with PostHog, self-hosted in our own EU account. Legal was much happier with that for GDPR.  #posthog
Felipe: Good, fewer data agreements to sign. I'll add the events this sprint.
Dana: And meet Sinead, our new marketing lead. She starts Monday and she'll own the launch plan.  #sinead
Felipe: Great, launches without marketing have been painful before.
Dana: Remember the 1.0 launch email with the broken link?
Felipe: I'll never forget. Four thousand people clicked it.
## 11:20 am on 21 October, 2024
Dana: Welcome back! How was the wedding?
Felipe: Beautiful. They married on a hill above the harbour, and I danced cueca badly in front of the whole family.
Dana: Ha, I want a video. Beta feedback is in, do you have a minute?
Felipe: Go.
Dana: Biggest complaint: importing a recipe from a blog mangles the quantities when it's in cups instead of grams.  #import_units
Felipe: The unit parser. It assumes metric. I can fix that this week.
Dana: Second: the app crashes on some Samsung phones running Android 12, right when the planner opens.  #samsung_crash
Felipe: I saw the reports. It's the custom font we load for the week header, it fails on their font renderer.  #font
Dana: Can we just use the system font there?
Felipe: That's the plan. Aiko agreed it still looks fine.
Dana: Also, good news: Tunde joins as our QA engineer on 4 November.  #tunde
Felipe: Finally a real QA person. I'll pair with him in his first week on the sync tests.
Dana: He asked for devices, so I ordered a Samsung for him. Seemed appropriate.
## 2:00 pm on 2 December, 2024
Dana: Launch video is done! We recorded it last Thursday with three families from the beta.  #video
Felipe: How did it go?
Dana: The Okoro family's twins stole the show. Sinead wants to cut a short version for social.
Felipe: Speaking of Sinead, what's the press plan?
Dana: She's set up an embargoed story with the Pocketful newsletter for launch morning, 7 am.  #pocketful
Felipe: Nice, their readers are exactly our users.
Dana: One change you should know about: after the beta survey we're pricing Plus at £4.49 a month, not £3.99. People said it was worth more than they paid for a streaming service.  #price_449
Felipe: Ha, fair. Does the free tier change?
Dana: No, shopping lists stay free forever. That's the promise.
Felipe: Good. On my side, the load test passed: the sync server held twenty thousand connected phones with no errors.  #load_test
Dana: That's double what we expect on day one. Great work.
Felipe: Tunde wrote most of the test scripts, credit to him.
Dana: I'll say so at the all-hands.
## 10:00 am on 13 January, 2025
Felipe: Two weeks to go. Only three open bugs, all cosmetic.
Dana: Best state we've ever been in this close to a launch.
Felipe: Did you have a good break?
Dana: Quiet. My parents came to stay and my dad reorganised my kitchen drawers without asking.
Felipe: Ha. We went to the coast, it rained the whole time.
Dana: Sinead wants us both on the launch day call at 6:30 am.
Felipe: 6:30. I'll bring coffee for everyone.
Dana: Aiko made launch stickers, by the way. A tiny juniper branch.
Felipe: Cute, even if the codename goes away at launch.
Dana: It does, in the app it's just called Meal Plans. Juniper lives on in the stickers.  #meal_plans
Felipe: Fine by me. I'll freeze the release branch on Thursday.
## 5:30 pm on 29 January, 2025
Dana: We did it! 12,000 sign-ups on the first day.
Felipe: I still can't believe it. And the sync held up all day.
Dana: Not a single sync incident. Tunde is walking around like a hero, as he should.
Felipe: The Pocketful story went out at 7 sharp, you could see the spike in the dashboard.
Dana: And we hit number three in Food and Drink on the App Store by lunch.
Felipe: My mum texted me a screenshot of it.
Dana: Conversion to Plus is 6 percent so far. Better than we modelled.
Felipe: So the higher price didn't scare people off.
Dana: Apparently not. Go home and sleep, Felipe.
Felipe: Only after I eat the cake Sinead brought.
Dana: Save me a slice. I'm writing the thank-you note to the beta households tonight.
Felipe: Tell them the grandparents' feature is coming. Half of them asked for it.
## 3:00 pm on 3 March, 2025
Dana: Retro notes are up. Top lesson: we should have started the sync work in the summer.
Felipe: Agreed. The move to January saved us, but it was luck as much as planning.
Dana: What's the top request from users now?
Felipe: Sharing a meal plan with someone outside the household. Grandparents, mostly.  #sharing
Dana: That's sweet. And a big change for permissions.
Felipe: Very. I'd like a month of design before we write any code this time.
Dana: You'll get it. Aiko is already sketching.
Felipe: Also, Tunde wants to automate the Android tests on real devices. It needs a budget.
Dana: Send me a number and I'll take it to leadership.
Felipe: About four hundred pounds a month for a device cloud.
Dana: That's nothing compared with a crash at launch. Approved, as far as I'm concerned.
Felipe: Thanks. Churn looks fine too, by the way: most people who left never opened the planner.
Dana: Then onboarding is the next thing to fix. I'll ask Aiko for a first-week walkthrough.
## 9:45 am on 14 April, 2025
Dana: I have news. I'm moving to lead the new Tandem for Teams product from May.  #teams
Felipe: Dana! Congratulations. Who takes Tandem over?
Dana: Sinead is stepping in as product lead for the consumer app for now.  #sinead_lead
Felipe: Interesting choice, but she knows the users better than anyone.
Dana: That's what I said too. You'll still be the tech lead.
Felipe: Good. The sharing feature is in beta next week, by the way.
Dana: With grandparents?
Felipe: Forty grandparents, my mum included. She's very proud.  #sharing_beta
Dana: She's the best tester we have. Coffee on Friday to hand over?
Felipe: Friday. I'll bring the last launch stickers.
Dana: And I'll bring the list of everything I never got round to.
Felipe: That list is longer than the roadmap.
"""

LONG_5_QUESTIONS = [
    ("What was the meal planning feature called inside the team?", "Juniper", ["juniper"], "single"),
    ("Who designed the meal planning screens?", "Aiko", ["aiko"], "paraphrase"),
    ("What was Felipe worried about in the sync engine?",
     "A meal plan has an order: two people moving the same dinner from two phones could lose an edit",
     ["sync_worry"], "single"),
    ("Why was Felipe away in the second week of October?", "His brother's wedding in Valparaíso", ["wedding"],
     "paraphrase"),
    ("How many households took part in the beta, and how were they chosen?",
     "300 from the waitlist, those who cook at least four nights a week", ["beta_size"], "single"),
    ("When did Tandem 2.0 launch in the end, and when was it first planned?",
     "28 January 2025; it was first planned for 14 November 2024", ["launch_nov", "launch_jan"], "multi"),
    ("How much does Tandem Plus cost a month?", "£4.49 (first set at £3.99, raised after the beta survey)",
     ["price_449"], "single"),
    ("Which analytics tool did the team choose, and why?", "PostHog, self-hosted in the EU, for GDPR",
     ["posthog"], "single"),
    ("What went wrong when beta testers brought in recipes from websites?",
     "Quantities in cups instead of grams came out wrong (the unit parser assumed metric)", ["import_units"],
     "paraphrase"),
    ("Which phones crashed in the beta, and what caused it?",
     "Samsung phones on Android 12: the custom font in the week header", ["samsung_crash", "font"], "single"),
    ("When did Tunde start, and what is his job?", "On 4 November 2024, as QA engineer", ["tunde"], "temporal"),
    ("When was the launch video recorded?", "On Thursday 28 November 2024", ["video"], "temporal"),
    ("Who ran marketing for the launch, and what did she arrange with the press?",
     "Sinead; an embargoed story in the Pocketful newsletter on launch morning", ["sinead", "pocketful"], "multi"),
    ("What is the meal planning feature called in the app?", "Meal Plans (Juniper was only the team's codename)",
     ["meal_plans"], "single"),
    ("Who runs the consumer app these days?", "Sinead, as product lead", ["sinead_lead"], "paraphrase"),
    ("When does Dana start on Tandem for Teams?", "In May 2025", ["teams"], "temporal"),
    ("What do users ask for most since the launch, and who is trying it out?",
     "Sharing a meal plan outside the household; forty grandparents, Felipe's mum among them, in the beta",
     ["sharing", "sharing_beta"], "multi"),
]

LONG_6 = """
## 6:00 pm on 8 May, 2023
Diego: ¡Hola Hana! Welcome to your first lesson. Tell me a little about yourself, in English for today.
Hana: Hi Diego! I'm a nurse in the children's ward of a hospital in Busan, and I know almost no Spanish.  #busan
Diego: Almost none is a fine place to start. Why Spanish?
Hana: In October I'm going to Oaxaca for six months, to volunteer at a community clinic. I want to talk with the patients myself, without an interpreter.  #oaxaca
Diego: That's a wonderful reason. Oaxaca is beautiful, and the food, ay.
Hana: Everyone tells me about the food! Have you been?
Diego: Many times, my aunt lives there. Have you studied any Spanish before?
Hana: Only the app. I have a forty day streak on Duolingo, mostly animals and colours.  #streak
Diego: Then we have a head start. Let's read something together. Say "perro".
Hana: Pero.
Diego: Close! That's "but". Perro, with the strong rolled r, is "dog".  #rolled_r_said
Hana: I can't do it. My tongue won't roll. That's going to be my worst sound, I can tell.  #rolled_r
Diego: Everyone says that in the first lesson. Practise "erre con erre guitarra" in the shower.
Hana: I will. I already have a favourite word, mariposa. It just sounds like a butterfly.  #mariposa
Diego: It means butterfly! Good instinct. So, Monday and Thursday evenings, an hour each?
Hana: Yes, Mondays and Thursdays after my shift.  #days_first
## 6:00 pm on 5 June, 2023
Diego: ¡Buenas tardes, Hana! ¿Cómo estás?
Hana: Estoy cansada. Long week on the ward. Can I complain about ser and estar?
Diego: Please do, everyone does.
Hana: Why is it "soy enfermera" but "estoy cansada"? Both are me.
Diego: Ser for what you are, estar for how you are right now. Tired today, a nurse for years.
Hana: Okay, that helps. I did the homework, the sentences about my family.
Diego: Read me one.
Hana: Mi hermano menor se llama Minjun y es cocinero en un restaurante de Seúl.  #brother
Diego: ¡Muy bien! Perfect sentence. Does he cook for you?
Hana: Only when he wants something. And: tengo una gata, se llama Dubu. Dubu means tofu, she's white and soft.  #dubu
Diego: A cat called Tofu, I love it. Now let's start your clinic vocabulary, since that's why you're here.
Hana: Yes please. What should I learn first?
Diego: Body parts, and "me duele" for "it hurts". Cabeza, estómago, garganta, espalda. And fiebre, fever.  #clinic_words
Hana: Me duele la cabeza. I've said that in English too many times this week.
Diego: For listening, try the podcast Radio Ambulante. Slow it down to 0.75 at first.
Hana: I'll try it on the bus to work.
## 7:30 pm on 17 July, 2023
Hana: Diego, I'm sorry, I have to move our lessons. The hospital changed my shifts to nights on Mondays and Thursdays.
Diego: No problem. What works for you now?
Hana: Could we do Tuesdays in the evening and Saturdays in the morning instead?  #days_new
Diego: Tuesday evening and Saturday morning it is, starting this week.
Hana: Thank you. Also I did something scary: I booked the DELE A2 exam. It's in Seoul, on Saturday 26 August.  #exam_booked
Diego: ¡Qué valiente! That gives us six weeks. We'll do a mock exam every Saturday.
Hana: Which part is hardest, usually?
Diego: For most of my students, the listening. People speak fast in the recordings.
Hana: Radio Ambulante at full speed still sounds like a waterfall to me.
Diego: It will slow down in your head, I promise. Today let's practise a clinic conversation. I'm the patient.
Hana: Okay. Buenos días, ¿dónde le duele?
Diego: Me duele el estómago desde ayer.
Hana: ¿Tiene fiebre? ¿Ha comido algo raro?
Diego: That was very good, Hana. You asked where it hurts and about fever without looking at your notes.  #roleplay
## 6:15 pm on 28 August, 2023
Diego: So? How was the exam on Saturday?
Hana: The reading and writing went well. The listening was a disaster, the man on the recording talked about a train timetable so fast.  #exam_listening
Diego: Train timetables are the classic trap. Results come in about two months, so let's not worry yet.
Hana: I'm trying not to. I have better news: I found a homestay in Oaxaca!
Diego: Tell me!
Hana: A family called Ramírez, ten minutes' walk from the clinic. The mother, Lupita, sells tlayudas at a stall in the evenings.  #host_family
Diego: You're going to eat so well. Do they speak any English?
Hana: No, nothing. Lupita sent me a voice message and I understood maybe half.
Diego: Half is a lot! What did she say?
Hana: That my room has a window over the garden and that they have a dog called Chapulín.
Diego: Chapulín means grasshopper. A good name for a jumpy dog.
Hana: And my flight is booked: I leave on 2 October, through Mexico City.  #flight
Diego: Five weeks. We'll practise what to say at immigration.
## 8:00 pm on 9 October, 2023
Hana: ¡Hola desde Oaxaca! I'm here! One week already.
Diego: ¡Bienvenida! How is it?
Hana: Loud, colourful, and everyone is so kind. Lupita's tlayudas are the best thing I've ever eaten.
Diego: I told you. And the clinic?
Hana: Busy. Today a grandmother told me about her knee for ten minutes and I understood almost all of it.
Diego: That's huge progress from May.
Hana: But I have a question. Someone said they would come "ahorita" and came three hours later.
Diego: Ah, ahorita. It can mean now, soon, or maybe never. Context is everything.
Hana: That explains a lot. Chapulín the dog sleeps outside my door every night.
Diego: He has adopted you. Do you miss Dubu?
Hana: Very much. My brother sends me photos of her every day.
Diego: Will our lesson times still work with your clinic hours?
Hana: They do, the clinic closes at five.
## 7:00 pm on 14 November, 2023
Hana: Diego! I passed the DELE A2! Seventy-eight points.  #passed
Diego: ¡Felicidades, Hana! I knew you would.
Hana: Even the listening was a pass, just barely.
Diego: Barely is a pass. How was Día de Muertos?
Hana: The Ramírez family built an altar with marigolds and photos of Lupita's parents. I helped make the pan de muerto.
Diego: That's a special thing to be part of.
Hana: It was. I cried a little. Lupita said the dead like visitors.
Diego: What's next for your Spanish?
Hana: The doctor at the clinic wants me to take the patients' histories on my own from December.
Diego: Then let's practise histories: allergies, medicines, how long it has hurt.
Hana: ¿Es alérgico a algún medicamento?
Diego: Perfecto.
## 7:00 pm on 12 December, 2023
Hana: I took six patient histories on my own this week!
Diego: Six! Any trouble?
Hana: One man spoke Zapotec first, and his daughter translated into Spanish for me. Then I translated into English for the doctor in my head.  #zapotec
Diego: Three languages in one consultation. That's impressive.
Hana: It was exhausting. The posadas started too, there is a procession on our street every night.
Diego: Do you go?
Hana: Every night. I sing the songs badly and get given tamales.
Diego: That's the deal. Are you going home for Christmas?
Hana: No, I'm staying. My brother is flying in on the 23rd!  #minjun_visit
Diego: Minjun in Oaxaca! Lupita will feed a chef.
Hana: He wants to learn mole from her. They have no language in common, it'll be fun.
Diego: Food is a language.
## 6:30 pm on 22 January, 2024
Hana: Happy new year, Diego. I've made a decision: I'm staying in Oaxaca another six months.  #extend
Diego: ¡Qué bien! The clinic asked you?
Hana: They did, and my hospital in Busan gave me the extra leave.
Diego: And Spanish?
Hana: I want to go for B1 in the summer. Is that realistic?  #b1
Diego: Very. We start the subjunctive next lesson, so be ready to suffer a little.
Hana: Ha. My brother went home with a notebook full of Lupita's recipes.
Diego: Did he learn the mole?
Hana: He says his is close. Lupita says it's not.
Diego: Grandmothers and mothers always say that.
Hana: I still can't roll my r properly, you know.
Diego: Your perro sounds like a perro now, Hana. Trust me.
"""

LONG_6_QUESTIONS = [
    ("Where does Hana work as a nurse?", "On the children's ward of a hospital in Busan", ["busan"], "single"),
    ("Why is Hana learning Spanish?",
     "To talk with patients herself while volunteering at a community clinic in Oaxaca for six months",
     ["oaxaca"], "paraphrase"),
    ("How long was Hana's Duolingo streak when she began lessons with Diego?", "Forty days", ["streak"], "single"),
    ("Which sound did Hana expect to struggle with most?", "The rolled r", ["rolled_r_said", "rolled_r"], "paraphrase"),
    ("What is Hana's favourite Spanish word?", "Mariposa (butterfly)", ["mariposa"], "single"),
    ("On which days are Hana's lessons with Diego now?",
     "Tuesday evenings and Saturday mornings (moved from Mondays and Thursdays when her shifts changed)",
     ["days_new"], "single"),
    ("What does Hana's younger brother do for a living?", "He is a cook in a restaurant in Seoul", ["brother"],
     "paraphrase"),
    ("What is Hana's cat called, and what does the name mean?", "Dubu, which means tofu", ["dubu"], "single"),
    ("What clinic Spanish has Hana practised with Diego?",
     "Body parts and 'me duele', fever; a role play asking where it hurts and about fever",
     ["clinic_words", "roleplay"], "multi"),
    ("When did Hana sit the DELE A2 exam, and where?", "Saturday 26 August 2023, in Seoul", ["exam_booked"],
     "temporal"),
    ("Which part of the exam went badly, and what was it about?",
     "The listening: a recording about a train timetable", ["exam_listening"], "single"),
    ("Where does Hana live in Oaxaca?", "With the Ramírez family, ten minutes' walk from the clinic",
     ["host_family"], "paraphrase"),
    ("When did Hana leave for Mexico, and how long had she planned to stay?",
     "On 2 October 2023, through Mexico City, for six months", ["flight", "oaxaca"], "multi"),
    ("How long is Hana staying in Oaxaca now?", "Another six months beyond the first six: she extended her stay",
     ["extend"], "single"),
    ("What language did one of Hana's patients speak, and how did she manage?",
     "Zapotec; his daughter translated into Spanish for her", ["zapotec"], "paraphrase"),
    ("When did Hana's brother arrive in Oaxaca?", "On 23 December 2023", ["minjun_visit"], "temporal"),
    ("Which Spanish exams has Hana passed, and which is she aiming for next?",
     "She passed the DELE A2 with seventy-eight points; next is B1 in the summer", ["passed", "b1"], "multi"),
]

LONG_7 = """
## 10:30 am on 15 April, 2024
Bronwen: Hi Raj, thanks for taking me on. I've done my own books for three years and I think it's time I stopped.
Raj: Happy to help, Bronwen. Tell me about the business first, in your own words.
Bronwen: I run Suds on Wheels, a mobile dog grooming van around Cardiff. I come to the house, wash and clip the dog in the van, and off I go.  #business
Raj: Lovely idea. Sole trader, since when?
Bronwen: Since the spring of 2021. Last year I turned over about forty-one thousand pounds.  #turnover
Raj: And your records are where at the moment?
Bronwen: In a spreadsheet, and a shoebox of receipts. Mostly the shoebox, if I'm honest.
Raj: We'll fix that. I'd like you to try a bookkeeping app. Start with the QuickBooks trial and see if you get on with it.  #quickbooks
Bronwen: I'll give it a go. Is the van part of the business?
Raj: It should be. Tell me about it.
Bronwen: It's a Ford Transit Custom, kitted out with a bath and a dryer. I bought it on finance in 2022.  #van
Raj: Good, we'll claim it properly. Anyone else working for you?
Bronwen: My sister Cerys answers the booking phone on Saturdays. I pay her twelve pounds an hour.  #cerys
Raj: Keep a note of what you pay her and when. That's a business cost too.
## 2:15 pm on 20 May, 2024
Raj: Hello Bronwen. I've been through the shoebox you dropped off.
Bronwen: Sorry about the state of it.
Raj: I've seen worse. Most of it is shampoo and conditioner from one supplier.
Bronwen: Happy Paws Wholesale in Newport. They deliver every month.  #supplier
Raj: Good, I can see the invoices. Now, the van. Do you use it for anything else, like the weekly shop?
Bronwen: Never. It smells of wet dog, nobody wants a lift in it.
Raj: Then we claim the actual costs, fuel, insurance and repairs, plus capital allowances on the van itself, instead of a mileage rate.  #van_costs
Bronwen: That sounds better for me?
Raj: Much better for a van that does nothing else. Another question you asked: VAT.
Bronwen: Do I have to charge it? Half my customers would faint.
Raj: Not yet. The threshold is ninety thousand pounds of turnover, and you're well under it.  #vat
Bronwen: Phew. What do I have to pay this summer?
Raj: Your second payment on account for last year's tax: one thousand eight hundred and fifty pounds, due by 31 July.  #payment_on_account
Bronwen: I'll put it aside now. Thanks, Raj.
## 11:00 am on 1 July, 2024
Bronwen: Raj, I need advice. I'm turning away three or four dogs a week, I can't keep up.
Raj: A good problem. What are you thinking?
Bronwen: Taking someone on. Ffion trained with me at college and she's looking for work.
Raj: Would she work set hours, in your van, with your equipment, doing the dogs you book?
Bronwen: Yes, all of that. I thought I'd just pay her as self-employed, like Cerys.
Raj: With set hours, your van and your tools, she'd be an employee, not self-employed. HMRC would see it that way.  #employee
Bronwen: Oh. So what does that mean for me?
Raj: You register as an employer and run payroll each month. There's employer's National Insurance, but the Employment Allowance should cover most of it.  #payroll
Bronwen: More paperwork.
Raj: A bit, but the bookkeeping app can run the payroll for you. How are you getting on with QuickBooks?
Bronwen: I haven't opened it since May, if I'm honest.
Raj: Let's talk about that next time, then.
## 4:00 pm on 12 August, 2024
Bronwen: Good news first: I paid the eighteen hundred and fifty on 29 July, two days early.  #paid
Raj: Well done. I saw it go through.
Bronwen: And I've stopped using QuickBooks. My bank gives me FreeAgent for free with the business account, so I've moved everything there.  #freeagent
Raj: FreeAgent is good, and free is better. Are the bank transactions coming in?
Bronwen: Every day, automatically. I've even photographed the receipts.
Raj: I'm proud of you. What about Ffion?
Bronwen: She starts on 2 September. Twenty-four hours a week, Tuesday to Thursday, at twelve pounds sixty an hour.  #ffion_start
Raj: That's above the minimum wage for her age, good. I'll set up payroll in FreeAgent before her first payday.
Bronwen: Her first payday is the last Friday of September.
Raj: Noted. Is she using your van?
Bronwen: For now. If it works out I might get a second van next year.
Raj: Talk to me before you sign anything. The timing matters for the allowances.
## 9:45 am on 7 October, 2024
Bronwen: Ffion's first month is done and the first payroll went through without a hitch.
Raj: I saw the payslip, all correct. How is she with the dogs?
Bronwen: Brilliant. The nervous dogs love her. One spaniel won't let me near him now.
Raj: Ha. Is the diary fuller?
Bronwen: Fully booked until November. I've put my prices up by five pounds too.
Raj: Sensible. Your costs have gone up a lot this year.
Bronwen: The shampoo alone went up twelve percent.
Raj: It's everywhere. Keep the invoices, it all comes off your profit.
Bronwen: The van has its MOT next week. Fingers crossed.
Raj: Keep the receipt for that as well.
Bronwen: You say that about everything.
Raj: Because everything counts.
## 3:30 pm on 18 November, 2024
Bronwen: The van broke down on the motorway on Friday. Clutch gone.  #clutch
Raj: Oh no. Were you alright?
Bronwen: Fine, but a labradoodle was in the back, covered in conditioner. We waited two hours for the tow.
Raj: What a day. How much is the repair?
Bronwen: Two thousand three hundred pounds. I nearly cried at the garage.  #repair
Raj: It's a repair, so it comes off this year's profit in full.
Bronwen: That's something. I had to cancel a whole week of dogs, though.
Raj: Could Ffion cover some?
Bronwen: She borrowed her dad's trailer and did the small dogs at their houses. A hero.
Raj: Keep a record of that too, we may owe her mileage.
Bronwen: Christmas is the busiest time, everyone wants a clean dog for the family.
Raj: Then let's hope the clutch holds.
## 2:00 pm on 16 December, 2024
Raj: A quick one before Christmas. I've got your figures up to the end of November.
Bronwen: Are they scary?
Raj: Not at all. Turnover is up, about fifty-two thousand for the year so far.  #turnover_now
Bronwen: That's Ffion, and the price rise.
Raj: Both. I'd like you to think about a pension. Paying into one reduces your tax.
Bronwen: I've never had one. I always thought the van was my pension.
Raj: The van will be worth very little in ten years. Let's start small, a hundred a month.
Bronwen: Alright, a hundred a month. Set it up in January?  #pension
Raj: January is fine. I'll have your tax return ready by mid January too.
Bronwen: Before the deadline this time. Last year I filed on the thirtieth.
Raj: No last-minute panic this year, I promise.
Bronwen: Merry Christmas, Raj. I'm grooming eleven dogs on Christmas Eve.
Raj: Merry Christmas. Save the receipts for the tinsel.
## 9:00 am on 27 January, 2025
Raj: Your return is filed, Bronwen. Four days before the deadline.
Bronwen: A record! How bad is it?
Raj: Six thousand two hundred and forty pounds for the year, including the first payment on account for this year.
Bronwen: I have that put aside. FreeAgent told me to, every month.
Raj: Then you're in good shape. The pension is set up as well?
Bronwen: First hundred went in on the tenth.  #pension_paid
Raj: Good. And Cerys is still doing Saturdays?
Bronwen: She is, and she wants a pay rise. Everybody does.
Raj: Send me the new rate and I'll add it to the records.
Bronwen: Thanks, Raj. Best year of Suds on Wheels so far.
Raj: The numbers agree with you.
Bronwen: Ffion says the same. She wants her own van by the summer.
Raj: Then we'll talk in the spring, before anyone signs anything.
"""

LONG_7_QUESTIONS = [
    ("What is Bronwen's business?", "Suds on Wheels, a mobile dog grooming van around Cardiff", ["business"],
     "single"),
    ("How much money did Bronwen's business bring in the year before she hired Raj?",
     "About £41,000 of turnover", ["turnover"], "paraphrase"),
    ("What vehicle does Bronwen work from, and how did she pay for it?",
     "A Ford Transit Custom with a bath and dryer, bought on finance in 2022", ["van"], "paraphrase"),
    ("Who answers Bronwen's booking phone on Saturdays, and what is she paid?",
     "Her sister Cerys, twelve pounds an hour", ["cerys"], "single"),
    ("Which bookkeeping software does Bronwen use now?",
     "FreeAgent, free with her business bank account (she dropped the QuickBooks trial)", ["freeagent"], "single"),
    ("Where does Bronwen buy her grooming products?", "Happy Paws Wholesale in Newport", ["supplier"],
     "paraphrase"),
    ("How does Raj claim the van's costs?",
     "Actual costs (fuel, insurance, repairs) plus capital allowances, not a mileage rate", ["van_costs"], "single"),
    ("Does Bronwen have to charge VAT?", "No: the threshold is £90,000 of turnover and she is well under it",
     ["vat"], "single"),
    ("When was the payment on account due, and when did Bronwen pay it?",
     "Due 31 July 2024; paid on 29 July, two days early", ["payment_on_account", "paid"], "temporal"),
    ("Why can't Ffion be paid as self-employed, and what does Bronwen have to do instead?",
     "Set hours in Bronwen's van with her equipment make her an employee: register as an employer and run payroll",
     ["employee", "payroll"], "multi"),
    ("When did Ffion start, and on what hours and pay?",
     "2 September 2024; twenty-four hours a week, Tuesday to Thursday, at £12.60 an hour", ["ffion_start"],
     "temporal"),
    ("Which bookkeeping apps has Bronwen tried since she joined Raj?",
     "The QuickBooks trial, then FreeAgent from her bank", ["quickbooks", "freeagent"], "multi"),
    ("How much has Suds on Wheels turned over this year?",
     "About £52,000 by the end of November 2024", ["turnover_now"], "single"),
    ("What did the garage charge to fix Bronwen's van?", "£2,300 for a new clutch", ["repair"], "paraphrase"),
    ("When did Bronwen's van break down?", "On Friday 15 November 2024, on the motorway", ["clutch"], "temporal"),
    ("How much does Bronwen pay into her pension, and when did it start?",
     "A hundred pounds a month, the first on 10 January 2025", ["pension", "pension_paid"], "multi"),
]

LONG_8 = """
## 3:30 am on 4 October, 2024
Isabel: Are you awake? It's half three here and I can't sleep, I keep thinking about dates.
Theo: Awake, it's only half ten in Toronto. Wedding dates or moving dates?  #toronto
Isabel: Both! Okay, wedding first. Gran says we can have it at the farm on Arran, in the big barn.  #farm
Theo: Your gran's farm? That's perfect. Your family has had every party there.
Isabel: And the date: Saturday 21 June. Longest day of the year, light until eleven.  #wedding_date
Theo: 21 June. I'm writing it on my hand so it's official.
Isabel: The barn holds sixty, so that's our limit. Sixty guests, no more.  #sixty
Theo: Sixty is plenty. My side will be twelve, maybe fifteen.
Isabel: And the move? Did the studio get back to you?
Theo: They did! Ninewells Studio offered me the job as a sound engineer, starting in April.  #job
Theo: So I move to Glasgow in March, if the visa comes through in time.
Isabel: I'm so happy I could cry. Actually I am crying, a little.
Theo: Go to sleep, future Mrs or Mr whoever we decide.
Isabel: We still haven't decided on the names thing. Tomorrow.
## 7:45 pm on 10 November, 2024
Theo: Big day: my visa application went in on Friday. Biometrics appointment is next week here in Toronto.  #visa
Isabel: Yes! How long do they say?
Theo: About twelve weeks, so late January if we're lucky.
Isabel: Fingers crossed. I've been flat hunting after work.
Theo: Anything good?
Isabel: A two bedroom in Partick, near the river. Eleven hundred and fifty a month, and the second room could be your studio.  #flat
Theo: A room for my records! Take it before someone else does.
Isabel: I've put the deposit down. The landlord has a cat that visits, apparently.
Theo: Even better. My sister Claire says she's coming to the wedding, and she's already bought a kilt.  #claire
Isabel: A kilt? She knows she doesn't have to?
Theo: She's very committed. She's watched every video about how to wear one.
Isabel: I love her already. How's work?
Theo: Last month at the old place. They're throwing me a leaving party with terrible karaoke.
## 9:00 pm on 15 December, 2024
Isabel: Bad news about the wedding. Gran rang this morning.
Theo: What happened?
Isabel: The storm took half the barn roof off, and the builder can't fix it before autumn.  #storm
Theo: Oh no. Is your gran alright?
Isabel: She's fine, she's mostly angry at the builder. But we can't have it at the farm.
Theo: So where do we go?
Isabel: Kilmory Hall, the hotel at the other end of the island. They have a free Saturday on the 21st and a room for sixty.  #venue_new
Theo: Same day, same island, same sixty. I can live with that.
Isabel: Gran says she'll still do the flowers from her garden.
Theo: Then it's still her wedding as much as ours. My parents booked their flights from Winnipeg, by the way.  #parents
Isabel: Your mum emailed me a list of questions about ferries.
Theo: She's planning it like a military operation. She'll love the ferry.
Isabel: I'll send her the timetable.
## 6:30 pm on 26 January, 2025
Theo: IT CAME. The visa was approved this morning!
Isabel: THEO! I screamed in the staff room.
Theo: I booked my flight straight away: I land in Glasgow on Saturday 8 March.  #flight
Isabel: Six weeks. I can't believe it.
Theo: The hard part is the records. I'm sending them by sea, all four hundred, packed in one wooden crate.  #records
Isabel: Four hundred records on a ship. Are they insured?
Theo: Very insured. It takes about eight weeks, so they'll arrive after me.
Isabel: The second room is waiting for them.
Theo: One more thing. Grandma June gave me her engagement ring for you, we're having it resized here.  #ring
Isabel: Your grandmother's ring? Theo, I don't know what to say.
Theo: She said it's been in a drawer too long and it should go dancing.
Isabel: Tell her it will dance at Kilmory Hall.
## 4:00 pm on 9 March, 2025
Isabel: Welcome home. Even if home is a flat with no furniture yet.
Theo: I slept fourteen hours. Is that normal?
Isabel: Jet lag and excitement. The cat came to inspect you while you slept.
Theo: The landlord's cat? I knew she'd come round.
Isabel: We need a bed that isn't a mattress on the floor.
Theo: Saturday then, to the furniture shop. What do people eat here on a Sunday?
Isabel: A roast, or a fry-up if you had a late night.
Theo: Fry-up. Definitely fry-up.
Isabel: Gran wants to meet you properly next weekend on Arran.
Theo: I'm nervous. Does she like Canadians?
Isabel: She likes anyone who eats her scones.
Theo: Then I'm safe. I could eat scones for Canada.
Isabel: Don't say that to her, she'll take it as a challenge.
## 8:15 pm on 20 April, 2025
Isabel: How was the first week at the studio?
Theo: Amazing. We recorded a folk band from Skye, the singer had a voice like a church bell.
Isabel: Did you understand them?
Theo: Mostly. One of them spoke Gaelic to the others and I just nodded.
Isabel: The records arrived too, did you see?
Theo: The crate is in the hall! Not one broken. I spent all evening putting them in order.  #crate
Isabel: Alphabetical or by genre?
Theo: By the year I bought them. It's a system, trust me.  #by_year
Isabel: Gran loved you, by the way. She told my mum you ate four scones.
Theo: Five. I hid one.
Isabel: We need to send the invitations this week.
Theo: Fifty-eight people said yes already, so two seats for surprises.  #yes58
## 7:00 pm on 1 June, 2025
Isabel: Three weeks. The seating plan is making me lose my mind.
Theo: Put my parents next to your gran, they'll talk about gardens all night.
Isabel: Good idea. Claire asked if she can give a speech.
Theo: In the kilt, I assume.
Isabel: Of course in the kilt. What about music?
Theo: I've made the playlist. Two hundred songs, no karaoke.
Isabel: And the first dance?
Theo: That's a secret until the day.
Isabel: The ring fits perfectly now, by the way.
Theo: Grandma June will be so happy. She's watching the wedding on a video call.
Isabel: We'll put the laptop on a chair in the front row.
## 10:30 am on 6 July, 2025
Isabel: Good morning, husband.
Theo: Good morning, wife. That still sounds strange.
Isabel: Best day of my life. Even the rain stopped for the photos.
Theo: Claire's speech made your gran laugh until she cried.
Isabel: And your mum took the ferry four times just for fun.
Theo: She loves that ferry more than me now.
Isabel: Grandma June saw the first dance on the laptop. She said the ring went dancing.
Theo: Told you she would.
Isabel: Honeymoon in Orkney next week. Have you packed?  #honeymoon
Theo: I've packed a recorder for the birds. I want the puffins for a track.
Isabel: Of course you have.
Theo: And a notebook for your gran's scone recipe. She promised.
Isabel: She has never given it to anyone. You must really be family now.
"""

LONG_8_QUESTIONS = [
    ("Which city does Theo live in before the move?", "Toronto", ["toronto"], "single"),
    ("What job is Theo moving to Glasgow for?", "Sound engineer at Ninewells Studio, starting in April",
     ["job"], "paraphrase"),
    ("On what date are Isabel and Theo getting married?", "Saturday 21 June 2025", ["wedding_date"], "temporal"),
    ("Where is the wedding being held?",
     "Kilmory Hall, a hotel on Arran (the farm's barn lost its roof in a storm)", ["venue_new"], "single"),
    ("Why did the wedding have to move from the first place planned?",
     "The storm took half the roof off the barn at Gran's farm on Arran, and it can't be fixed before autumn",
     ["farm", "storm"], "multi"),
    ("How many guests can come to the wedding?", "Sixty", ["sixty"], "single"),
    ("Where is Isabel and Theo's flat, and what does it cost?", "In Partick, near the river: £1,150 a month",
     ["flat"], "single"),
    ("When did Theo apply for his visa?", "On Friday 8 November 2024", ["visa"], "temporal"),
    ("How is Theo getting his music collection to Scotland?",
     "By sea: four hundred records in one insured wooden crate", ["records"], "paraphrase"),
    ("When does Theo arrive in Glasgow?", "Saturday 8 March 2025", ["flight"], "temporal"),
    ("Where does Isabel's engagement ring come from?", "Theo's grandmother June gave him her ring", ["ring"],
     "paraphrase"),
    ("Who from Theo's family is coming to the wedding?",
     "His sister Claire (in a kilt) and his parents, flying from Winnipeg", ["claire", "parents"], "multi"),
    ("How many wedding guests have accepted?", "Fifty-eight, leaving two seats for surprises", ["yes58"],
     "paraphrase"),
    ("How does Theo order his records?", "By the year he bought them", ["by_year"], "single"),
    ("When is Isabel and Theo's honeymoon, and where?", "The week after 6 July 2025, in Orkney", ["honeymoon"],
     "temporal"),
    ("How did Theo's records get to Glasgow, and did they survive?",
     "By sea, in one insured wooden crate; not one broke", ["records", "crate"], "multi"),
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
    ("long-4", ("Walter", "June"), LONG_4, LONG_4_QUESTIONS),
    ("long-5", ("Dana", "Felipe"), LONG_5, LONG_5_QUESTIONS),
    ("long-6", ("Hana", "Diego"), LONG_6, LONG_6_QUESTIONS),
    ("long-7", ("Bronwen", "Raj"), LONG_7, LONG_7_QUESTIONS),
    ("long-8", ("Isabel", "Theo"), LONG_8, LONG_8_QUESTIONS),
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
