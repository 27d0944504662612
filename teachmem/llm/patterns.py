"""The triggers of the rules: short regular expressions that say where a fact starts.

Each pattern matches only a short, fixed trigger ("I live in ", "my budget");
the rule then reads the value word by word, a bounded number of them, which
keeps every rule linear in the length of the message. Personal patterns speak
of the user in the first person ("I", "my") or in the third ("the user's").
"""
from __future__ import annotations

import re

from teachmem.llm.lexicon import DIETS


# The user, in the first person or the third.
_ME = r"(?:i|user|the user)"
_ME_BE = r"(?:i'm|im|i am|user is|the user is)"
_MY = r"(?:my|user's|the user's)"
# Up to three adverbs between subject and verb: "I really also like ...".
_ADV = r"(?:(?:really|also|absolutely|just|totally|genuinely|actually|truly|still|do|definitely|kind of|" \
       r"kinda|sort of|quite|especially|particularly|very much|mostly|usually|generally|always|much|" \
       r"strongly|now|currently) ){0,3}"

# -- names, places, work, age, diet, allergies ------------------------------
NAME_MY = re.compile(rf"\b{_MY} (?:first |full |real )?name(?: is|'s) |^(?:the )?name(?:'s| is) ", re.I)
NAME_CALL = re.compile(rf"\b(?:call me|calls me|{_ME} (?:go|goes) by) ", re.I)
NAME_IM = re.compile(rf"\b{_ME_BE} |^(?:this is|it's) ", re.I)
LOCATION = re.compile(
    rf"\b(?:(?:{_ME}|we) {_ADV}(?:live|lives|reside|resides) in"
    rf"|(?:{_ME_BE}|we're|we are) {_ADV}(?:living|residing|based|located) (?:in|out of)"
    rf"|(?:{_ME}|we)(?:'ve| have| has)? {_ADV}(?:moved|relocated) (?:back )?to) ", re.I)
ORIGIN = re.compile(rf"\b{_ME_BE} (?:originally )?from ", re.I)
EMPLOYER = re.compile(
    rf"\b(?:{_ME} {_ADV}(?:work|works) (?:at|for)|{_ME_BE} {_ADV}(?:working|employed) (?:at|for|by)"
    rf"|{_ME} {_ADV}(?:work|works) as (?:an? )?[\w-]+(?: [\w-]+)? (?:at|for)) ", re.I)
WORK_AS = re.compile(rf"\b{_ME} {_ADV}(?:work|works) as (?:an? )?", re.I)
AS_JOB = re.compile(rf"\b{_ME} {_ADV}(?:work|works)\b[^,;:]{{1,60}}? as (?:an? )?", re.I)
IM_A = re.compile(rf"\b{_ME_BE} {_ADV}(?:an?) ", re.I)
AGE = re.compile(rf"\b{_ME_BE} (\d{{1,3}})(?: (?:years?|yrs) old)?\s*(?:[,.!;]|$)", re.I)
_DIET_WORDS = "|".join(sorted((re.escape(d) for d in DIETS), key=len, reverse=True))
DIET = re.compile(
    rf"\b(?:{_ME_BE}|i've been|i have been|i went|i've gone|i have gone|we're|we are) "
    rf"(?:(?:a|an|strictly|fully|mostly|mainly|now|also|still|actually|completely|pretty much|100%) ){{0,2}}"
    rf"({_DIET_WORDS})\b"
    rf"|\b{_ME} {_ADV}(?:eat|eats|follow|follows|keep|keeps|do|stick to|sticks to|am on|'m on|"
    rf"am following|'m following) (?:(?:a|an|the|only|strictly|mostly) ){{0,2}}({_DIET_WORDS})\b", re.I)
EAT_NOT = re.compile(rf"\b{_ME} {_ADV}(?:don't|do not|doesn't|does not|never|can't|cannot) eat ", re.I)
ALLERGIC = re.compile(rf"\b(?:{_ME_BE}|i've always been|i have always been|i've been|i have been) "
                      rf"(?:(?:very|severely|mildly|highly|also|really|extremely|slightly|quite|deathly|"
                      rf"seriously|super) ){{0,2}}allergic to ", re.I)
ALLERGY_HAVE = re.compile(rf"\b{_ME} (?:also )?(?:have|has) (?:an? )?(?:(?:severe|mild|bad|serious|slight|"
                          rf"strong|nasty) )?([a-z]+(?:[ -][a-z]+)?) allerg(?:y|ies)\b", re.I)
INTOLERANT = re.compile(rf"\b{_ME_BE} (?:also |very |quite )?(\w+) intolerant\b", re.I)
# -- favourites, preferences, likes, plans ---------------------------------
FAVORITE = re.compile(rf"\b{_MY} (?:(?:all-time|all time|absolute|personal) )?favou?rite "
                      r"([a-z]+(?: [a-z]+){0,2}?) (?:is|are) ", re.I)
FAVORITE_REV = re.compile(r"\b([\w-]+(?: [\w-]+){0,2}) (?:is|are) (?:definitely |probably )?my "
                          r"(?:all-time |absolute )?favou?rite ([a-z]+(?: [a-z]+)?)\b", re.I)
I_PREFER = re.compile(rf"\b{_ME}(?:'d| would)? {_ADV}(?:prefer|prefers|rather)\b", re.I)
PREFER = re.compile(rf"\b(?:{_ME}|we)(?:'d| would)? {_ADV}(?:prefer|prefers|rather)\b ?"
                    rf"|\b{_MY} preference is (?:for )?", re.I)
LIKE = re.compile(rf"\b{_ME} {_ADV}(like|likes|love|loves|enjoy|enjoys|adore|adores)\b ?"
                  rf"|\b{_ME_BE} {_ADV}(?:(?:a (?:big |huge |massive )?fan of)|into) ", re.I)
DISLIKE = re.compile(
    rf"\b{_ME} {_ADV}(?:don't|do not|doesn't|does not|didn't|did not|never|can't|cannot) "
    rf"(?:really |particularly |much |actually |even )?(?:like|love|enjoy|stand|care for)\b ?"
    rf"|\b{_ME} {_ADV}(?:hate|hates|dislike|dislikes|detest|detests|loathe|loathes|can't stand) "
    rf"|\b{_ME_BE} not {_ADV}(?:(?:a (?:big |huge )?fan of)|into) ", re.I)
BUILDING = re.compile(r"\b(?:i'm|i am|we're|we are|user is|the team is) (?:(?:currently|now|just|also) )?"
                      r"(?:building|making|creating|developing|working on|writing|designing) "
                      r"(?=(?:an?|the|my|our|some) )", re.I)
# Only "I want": "we need caching" is an opinion about the project, not a wish of the user's.
WANT = re.compile(rf"\b{_ME} {_ADV}(want|wants|need|needs) ", re.I)
MY_X_IS = re.compile(r"\b(my|our|user's) ([a-z][\w'-]*(?: [a-z][\w'-]*){0,2}?) (?:is|are) ", re.I)
# -- money and dates: budgets and deadlines --------------------------------
MONEY = re.compile(
    r"(?:(?:about|around|roughly|approximately|approx\.?|up to|under|below|less than|at most|no more than|"
    r"over|at least|maybe|~)\s)?"
    r"(?:[$€£¥]\s?\d[\d,]{0,15}(?:\.\d{1,4})?(?:\s?(?:k|m|bn|thousand|million|grand)\b)?"
    r"|\d[\d,]{0,15}(?:\.\d{1,4})?\s?(?:k|thousand|million|grand)?\s?(?:dollars?|usd|euros?|eur|pounds?|gbp|bucks|"
    r"yen|francs?|chf|rupees?|inr|aud|cad|sek|nok)\b"
    r"|\d[\d,]{0,15}(?:\.\d{1,4})?\s?(?:k|grand)\b)"
    r"(?:\s?(?:a|an|per|each|every|/)\s?(?:month|year|week|day|night|person|head|hour|user|seat|mo|yr)\b)?",
    re.I)
BUDGET = re.compile(r"\b(?:(my|our|the|user's|team's|project's|a|an) )?((?:[a-z]+ ){0,2}?)budget\b", re.I)
SPEND = re.compile(rf"\b{_ME} (?:can|could) (?:only )?(?:spend|afford)|\bwilling to (?:spend|pay)\b", re.I)
_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
DATE = re.compile(
    rf"\b(?:(?:[Tt]he )?(?:[Ee]nd|[Ss]tart|[Bb]eginning|[Mm]iddle|[Mm]id|[Ff]irst week|[Ll]ast week) of )?"
    rf"(?:{_MONTHS})(?: \d{{1,2}}(?:st|nd|rd|th)?)?(?:,? \d{{4}})?\b"
    r"|\b\d{4}-\d{2}-\d{2}\b|\b[Qq][1-4](?: \d{4})?\b"
    r"|\b(?:next|this) (?:week|month|quarter|year|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b")
LAUNCH = re.compile(r"\b(?:launch|launching|release|releasing|ship|shipping|go live|going live|deadline|"
                    r"due|deliver|delivery|finish|finished|ready)\b", re.I)
