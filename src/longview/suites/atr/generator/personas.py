"""Twenty synthetic, pseudonymous personas written for longview's built-in ATR cohort (larger
cohorts add personas derived from them).

Each persona carries trait tags with one supporting sentence each; rule templates whose variants
share a tag are plausible for the persona, and the sentence becomes the rule's evidence. Names,
jobs and lives are invented; cities are only places to set the tasks in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class PersonaSeed:
    persona_id: str
    name: str
    sex: str  # "Female" | "Male"; picks the pronouns of rule texts
    age: int
    occupation: str
    city: str
    state: str
    household: str
    hobbies: tuple[str, ...]
    summary: str
    traits: dict[str, str] = field(default_factory=dict)  # tag -> supporting persona sentence

    @property
    def pronouns(self) -> dict[str, str]:
        if self.sex == "Female":
            return {"P": "She", "p": "she", "pos": "her", "obj": "her"}
        return {"P": "He", "p": "he", "pos": "his", "obj": "him"}

    @property
    def first_name(self) -> str:
        return self.name.split()[0]

    def structured(self) -> dict[str, Any]:
        """The episode's ``structured_persona``."""
        return {
            "name": self.name,
            "demographics": {
                "age": self.age,
                "sex": self.sex,
                "occupation": self.occupation,
                "city": self.city,
                "state": self.state,
                "country": "USA",
                "household": self.household,
            },
            "persona_summary": self.summary,
            "hobbies_and_interests": list(self.hobbies),
            "traits": [self.traits[k] for k in sorted(self.traits)],
        }


def _p(pid: str, name: str, sex: str, age: int, occupation: str, city: str, state: str, household: str,
       hobbies: tuple[str, ...], summary: str, **traits: str) -> PersonaSeed:
    return PersonaSeed(pid, name, sex, age, occupation, city, state, household, hobbies, summary, dict(traits))


PERSONAS: tuple[PersonaSeed, ...] = (
    _p("delphine_okafor", "Delphine Okafor", "Female", 34, "pediatric nurse", "Columbus", "OH",
       "married, two children aged 4 and 7", ("container gardening", "choir", "thrift-store furniture flips"),
       "Delphine Okafor works rotating hospital shifts, runs her household on a shared whiteboard calendar "
       "and stretches every dollar so the family can take one real vacation a year.",
       family="Her two kids, four and seven, come along to most weekend outings.",
       budget="She keeps a strict monthly envelope budget and tracks every subscription.",
       busy="Rotating twelve-hour shifts leave her with little slack in the week.",
       organised="A colour-coded whiteboard in her kitchen holds the whole family's schedule.",
       health="After years on the ward she is careful about allergens and harsh chemicals at home.",
       cautious="She double-checks anything that costs money before it goes through.",
       music="She sings alto in a community gospel choir on Thursday nights.",
       cooking="Sunday batch cooking feeds the family through her work week.",
       quiet="After a loud shift she wants calm places to eat and unwind.",
       outdoors="Weekend hikes at the metro parks are her reset."),
    _p("tomasz_wierzbicki", "Tomasz Wierzbicki", "Male", 58, "high-school chemistry teacher", "Milwaukee", "WI",
       "married, adult son living in Chicago", ("birdwatching", "polka band accordion", "home brewing"),
       "Tomasz Wierzbicki is a patient, methodical teacher nearing retirement who plans trips months ahead, "
       "keeps paper and digital records in matching order, and spends spring mornings counting warblers.",
       organised="He files everything by school year and keeps a labelled binder for each class.",
       cautious="He never lets anything irreversible happen without reading it over first.",
       outdoors="Dawn birdwatching walks along the lakefront are his favourite routine.",
       music="He plays accordion in a weekend polka band.",
       early="He is up at five and prefers to be home by evening.",
       budget="Saving for retirement has made him careful with recurring costs.",
       local="He buys hops and grain from a neighbourhood brewing co-op rather than big chains.",
       culture="He drags his wife to every natural-history museum on their trips.",
       comfort="A bad knee makes cramped seats and long walks hard for him.",
       team_lead="He chairs the science department and runs its weekly meeting."),
    _p("mei_lin_zhao", "Mei-Lin Zhao", "Female", 29, "UX researcher", "Seattle", "WA",
       "lives with her partner and a rescue greyhound", ("bouldering", "film photography", "dim sum crawls"),
       "Mei-Lin Zhao interviews users for a living, writes to her grandparents in Chinese every week, and plans "
       "weekends around climbing gyms, street food and her greyhound's needs.",
       zh="She writes to her grandmother in Chinese every Sunday.",
       tech="She tests every gadget before buying and reads the spec sheets.",
       pets="Her rescue greyhound, Biscuit, travels with her whenever possible.",
       outdoors="She climbs outdoors in the Cascades most summer weekends.",
       cooking="She hunts for regional Chinese ingredients and cooks elaborate dinners.",
       eco="She avoids single-use plastic and buys second-hand when she can.",
       work_travel="Research studies send her to other cities a few times a quarter.",
       organised="Her research notes are tagged by project and study round.",
       privacy="She keeps her personal calendar separate from what colleagues can see.",
       team_lead="She leads a small research team and writes its weekly summaries."),
    _p("ricardo_salgado", "Ricardo Salgado", "Male", 41, "independent electrician", "San Antonio", "TX",
       "divorced, shares custody of a ten-year-old daughter", ("fishing", "conjunto music", "backyard barbecue"),
       "Ricardo Salgado runs a one-truck electrical business, answers client texts between jobs, and keeps his "
       "weekends with his daughter free for fishing trips and family cookouts.",
       freelancer="He invoices every client himself and keeps signed work orders for each job.",
       local="He buys supplies from family-run shops in his neighbourhood.",
       family="Every other weekend is reserved for his ten-year-old daughter.",
       budget="Irregular income makes him watchful about monthly charges.",
       outdoors="Fishing at Canyon Lake is his idea of a perfect Saturday.",
       music="He never misses the spring conjunto festival.",
       busy="Between job sites his days run from early morning to late evening.",
       cautious="A costly billing mistake years ago taught him to check before paying.",
       cooking="He smokes brisket for every family gathering.",
       early="His workday starts at six, so late nights are rare."),
    _p("ingrid_halvorsen", "Ingrid Halvorsen", "Female", 71, "retired librarian", "Duluth", "MN",
       "widowed, lives alone near her daughter's family", ("quilting", "chamber music", "lake-shore walks"),
       "Ingrid Halvorsen spent forty years cataloguing a public library, now quilts, volunteers at the historical "
       "society and plans careful visits to her grandchildren across the country.",
       senior="At seventy-one she takes advantage of every senior rate going.",
       quiet="Her hearing aids make loud dining rooms exhausting.",
       organised="A lifetime of cataloguing shows in her neatly dated folders.",
       culture="She volunteers at the county historical society twice a week.",
       music="She holds a season subscription to the local chamber orchestra.",
       cautious="She likes to approve anything before it is sent or booked in her name.",
       comfort="Stiff hips make aisle seats and short walks important to her.",
       early="She prefers matinees so she can drive home before dark.",
       family="Her grandchildren in Denver are the reason for most of her trips.",
       budget="She lives on a fixed pension and watches recurring bills closely."),
    _p("kwame_asante", "Kwame Asante", "Male", 37, "hospital finance analyst", "Charlotte", "NC",
       "married, one toddler", ("road cycling", "Afrobeat vinyl", "fantasy football"),
       "Kwame Asante models budgets by day and rides long road loops at dawn, treating family time, spreadsheets "
       "and training plans with the same appetite for structure.",
       organised="He keeps every project in its own folder with a dated log.",
       team_lead="He manages three analysts and writes the monthly variance memos.",
       fitness="He logs his rides and tracks recovery data every morning.",
       early="He rides at dawn and is in bed by ten.",
       family="His toddler's nap schedule shapes every weekend plan.",
       tech="He reads benchmark reviews before any electronics purchase.",
       music="He collects Afrobeat records and goes to small club shows.",
       budget="He reviews the household's recurring charges every quarter.",
       busy="Month-end closes fill his calendar with back-to-back meetings.",
       work_travel="He flies to the health system's other campuses twice a month."),
    _p("sofia_marchetti", "Sofia Marchetti", "Female", 26, "graduate student in urban planning", "Philadelphia", "PA",
       "shares an apartment with two roommates", ("community gardening", "indie theatre", "thrifting"),
       "Sofia Marchetti juggles a thesis on transit equity, a part-time research job and a community garden plot, "
       "on a tight student budget and with strong views about cars and climate.",
       eco="She takes the train whenever it is an option and avoids flying short hops.",
       budget="A student stipend means she compares prices on everything.",
       vegetarian="She has been vegetarian since high school.",
       local="She prefers small independent businesses to chains.",
       culture="She volunteers as an usher at a fringe theatre.",
       outdoors="Her community garden plot is her weekend refuge.",
       organised="Her thesis files are sorted by chapter and source.",
       student="She is writing a thesis and works as a research assistant.",
       night="She does her best work late at night.",
       quiet="Crowded, noisy spots drain her after a week of fieldwork."),
    _p("harold_fitzgerald", "Harold Fitzgerald", "Male", 66, "semi-retired insurance adjuster", "Tucson", "AZ",
       "married, three grandchildren nearby", ("golf", "woodworking", "Western history"),
       "Harold Fitzgerald still consults two days a week, builds furniture for his grandchildren and reads about "
       "the history of the Southwest, preferring reliable routines and no surprises on his bills.",
       senior="He qualifies for senior pricing and always asks about it.",
       cautious="Decades of claims work made him wary of anything done without sign-off.",
       comfort="Long flights leave his back stiff unless he can stand and stretch.",
       culture="He visits every frontier museum and historic mission he can find.",
       family="His three grandchildren live ten minutes away.",
       budget="He compares plan prices before renewing anything.",
       early="He tees off at seven and rarely stays out late.",
       organised="His workshop and his files are both labelled by project.",
       quiet="He prefers calm restaurants where he can hear the table.",
       local="He buys lumber and tools from an independent yard."),
    _p("aaliyah_brooks", "Aaliyah Brooks", "Female", 32, "freelance graphic designer", "Atlanta", "GA",
       "single, lives with two cats", ("screen printing", "R&B concerts", "plant collecting"),
       "Aaliyah Brooks designs brand identities for small businesses from her home studio, manages her own "
       "clients and invoices, and fills her evenings with concerts and printmaking.",
       freelancer="She keeps signed contracts and invoices for each client.",
       pets="Her two cats need a sitter or boarding whenever she travels.",
       music="She goes to R&B shows at small venues most months.",
       organised="Her design files are named by client and project.",
       tech="She researches hardware carefully before upgrading her studio.",
       budget="Freelance income makes her watch her subscriptions.",
       local="She shops Black-owned and independent stores in her neighbourhood.",
       night="She works late and sleeps in.",
       cautious="She has been burned by messages going out too early to clients.",
       eco="She buys refurbished equipment whenever she can."),
    _p("jun_park", "Jun Park", "Male", 45, "restaurant owner", "Los Angeles", "CA",
       "married, two teenagers", ("surfing", "natural wine", "Korean folk music"),
       "Jun Park runs a busy neighbourhood Korean restaurant, sources produce from farmers he knows by name, and "
       "guards Monday, his one day off, for surfing and his family.",
       cooking="He tastes ingredients from every supplier before they reach his kitchen.",
       local="He buys produce directly from small farms around Los Angeles.",
       busy="Service runs six days a week, late into the evening.",
       family="His two teenagers' games and recitals fill his day off.",
       outdoors="He surfs at dawn on Mondays.",
       team_lead="He manages a kitchen crew of eleven and keeps their schedules.",
       organised="He keeps supplier invoices in dated folders.",
       work_travel="He flies to food fairs a few times a year.",
       night="His workday ends after midnight.",
       cautious="He wants to see any supplier cancellation before it goes out."),
    _p("beatriz_nunes", "Beatriz Nunes", "Female", 52, "civil engineer", "Providence", "RI",
       "married, one son in college", ("sailing", "fado music", "ceramics"),
       "Beatriz Nunes manages bridge inspections across New England, sails every summer weekend and keeps a "
       "detailed log of everything from project punch lists to her sailboat's maintenance.",
       organised="She keeps running logs for every project and for her boat.",
       team_lead="She supervises a team of inspectors and signs off their reports.",
       outdoors="Summer weekends are for sailing Narragansett Bay.",
       work_travel="Site visits send her around New England most weeks.",
       culture="She seeks out Portuguese cultural festivals.",
       early="She is at her desk by seven.",
       cautious="She wants to approve bookings before they are made.",
       comfort="She is tall and hates being squeezed into a window seat.",
       budget="Paying college tuition makes her trim the household's extras.",
       quiet="She prefers quiet hotels where she can sleep before early inspections."),
    _p("elijah_whitfield", "Elijah Whitfield", "Male", 23, "junior software developer", "Austin", "TX",
       "single, shares a house with friends", ("esports", "climbing", "synthwave"),
       "Elijah Whitfield writes backend code at a startup, plays in an amateur esports league, and is learning "
       "to budget after moving out of his parents' home last year.",
       tech="He compares specs and benchmarks before any hardware purchase.",
       budget="Paying rent for the first time has made him count every dollar.",
       night="He games late and rarely schedules anything before ten.",
       outdoors="He climbs at the greenbelt on weekends.",
       music="He goes to synthwave shows at small clubs.",
       eco="He buys refurbished tech to cut down on e-waste.",
       student="He takes evening classes toward a computer science degree.",
       busy="Sprint deadlines pile up meetings on his calendar.",
       organised="He keeps a personal kanban tracker for everything.",
       privacy="He keeps personal errands off his shared work calendar."),
    _p("farah_haddad", "Farah Haddad", "Female", 39, "pharmacist", "Dearborn", "MI",
       "married, three children", ("Arabic calligraphy", "baking", "community volunteering"),
       "Farah Haddad runs the pharmacy counter at a busy clinic, organises her children's activities with military "
       "precision, and bakes for every community gathering.",
       family="Her three children all have after-school activities.",
       health="She reads every label for allergens and additives.",
       organised="Family paperwork sits in folders sorted by date.",
       cooking="She bakes for every neighbourhood event.",
       cautious="She wants to confirm anything involving money before it happens.",
       busy="Clinic shifts and school runs fill her days.",
       budget="Three kids' activities mean she watches every recurring charge.",
       local="She shops at the family-run grocers on Warren Avenue.",
       early="She prefers morning appointments before her shift starts.",
       quiet="She avoids loud places when out with the kids."),
    _p("owen_mcallister", "Owen McAllister", "Male", 48, "wildlife biologist", "Bozeman", "MT",
       "married, no children, two dogs", ("fly fishing", "backcountry skiing", "bluegrass fiddle"),
       "Owen McAllister tracks elk herds for the state, spends his free time in the backcountry with his dogs, "
       "and avoids crowds wherever he can.",
       outdoors="He spends most weekends in the backcountry.",
       pets="His two border collies come on every road trip.",
       quiet="He avoids crowds and picks out-of-the-way places.",
       eco="He drives instead of flying when the distance allows it.",
       music="He plays fiddle at a weekly bluegrass jam.",
       organised="His field data is filed by season and site.",
       budget="A state salary keeps him frugal.",
       early="Field work starts before sunrise.",
       work_travel="Conferences take him to a few cities each year.",
       cautious="He wants a say before anything is cancelled."),
    _p("priya_raman", "Priya Raman", "Female", 44, "management consultant", "Chicago", "IL",
       "married, one daughter", ("marathon running", "Carnatic music", "cookbook collecting"),
       "Priya Raman travels for client work most weeks, trains for marathons in the gaps, and keeps tight control "
       "over a calendar that has little room for surprises.",
       work_travel="She flies out to client sites almost every Monday.",
       busy="Her calendar is booked in fifteen-minute blocks.",
       team_lead="She leads engagement teams and writes their weekly status memos.",
       vegetarian="She is vegetarian and plans meals around it on the road.",
       fitness="She runs every morning, even while travelling.",
       comfort="Long flights are easier for her with room to get up.",
       organised="Client deliverables live in folders sorted by project.",
       family="Her daughter's school events are fixed points in her calendar.",
       cautious="She wants to sign off on anything sent in her name.",
       music="She attends Carnatic concerts whenever she can."),
    _p("gabriel_fontaine", "Gabriel Fontaine", "Male", 30, "sous chef", "New Orleans", "LA",
       "lives with his girlfriend", ("brass band music", "fishing the bayou", "vintage vinyl"),
       "Gabriel Fontaine works late services in a French Quarter kitchen, knows every fishmonger in the city, and "
       "spends his days off chasing brass bands and redfish.",
       cooking="He tastes everything and is picky about where ingredients come from.",
       local="He buys seafood straight from Gulf fishermen.",
       music="Second lines and brass band shows are his weekends.",
       night="His shifts end well after midnight.",
       outdoors="He fishes the bayou on his days off.",
       budget="Kitchen wages keep him careful with money.",
       eco="He avoids waste in the kitchen and at home.",
       culture="He loves the city's jazz history and its small museums.",
       quiet="On his nights off he wants low-key places, not tourist crowds.",
       organised="He keeps prep lists and recipes in a tidy tracker."),
    _p("naomi_feldman", "Naomi Feldman", "Female", 62, "family-practice doctor", "Baltimore", "MD",
       "married, two grown children, one grandchild", ("opera", "crossword puzzles", "watercolour painting"),
       "Naomi Feldman still sees patients four days a week, paints watercolours on Fridays, and is the person her "
       "family calls to organise every holiday gathering.",
       health="She reads ingredient lists as closely as lab results.",
       culture="She holds opera season tickets and visits galleries on trips.",
       cautious="She wants to approve cancellations and bookings herself.",
       organised="Her files are sorted by owner and year.",
       family="She organises every family holiday gathering.",
       quiet="She prefers quiet dining rooms where conversation is easy.",
       comfort="She likes an aisle seat so she can stretch on long flights.",
       senior="She has just started qualifying for senior discounts.",
       early="She is an early riser and prefers daytime performances.",
       team_lead="She runs the practice's weekly staff meeting."),
    _p("luis_echeverria", "Luis Echeverria", "Male", 35, "middle-school history teacher", "Albuquerque", "NM",
       "married, twin boys aged six", ("hiking", "mariachi guitar", "board games"),
       "Luis Echeverria teaches seventh-grade history, plays guitar at family parties, and plans family trips "
       "around museums, trails and a teacher's budget.",
       family="His six-year-old twins come on every trip.",
       budget="A teacher's salary means he compares prices carefully.",
       culture="He plans every trip around museums and historic sites.",
       outdoors="Weekend hikes in the Sandias keep the twins busy.",
       music="He plays mariachi guitar at family parties.",
       organised="His lesson files are sorted by unit and date.",
       local="He prefers local, family-run restaurants to chains.",
       cautious="He checks with his wife before any family booking goes through.",
       early="The twins have him up early every day.",
       eco="He prefers the train for regional trips."),
    _p("hana_sato", "Hana Sato", "Female", 27, "physical therapist", "Portland", "OR",
       "lives with her partner and a corgi", ("trail running", "ceramics", "tea ceremony"),
       "Hana Sato treats sports injuries at a clinic, runs trails before work, and keeps her life low-waste, "
       "low-key and planned around her corgi.",
       eco="She keeps a near zero-waste kitchen and buys second-hand first.",
       pets="Her corgi, Mochi, goes everywhere she can take him.",
       fitness="She runs trails four mornings a week.",
       health="She avoids fragrances because of her partner's asthma.",
       outdoors="Weekends mean trail runs in Forest Park.",
       vegetarian="She eats mostly plant-based meals.",
       quiet="She prefers calm cafes and quiet hotel rooms.",
       early="She is up at five-thirty for her runs.",
       organised="She logs her patients' progress in trackers.",
       budget="Paying off student loans keeps her budget tight."),
    _p("marcus_bellamy", "Marcus Bellamy", "Male", 50, "logistics operations manager", "Memphis", "TN",
       "married, two teenagers", ("blues guitar", "smoking barbecue", "college football"),
       "Marcus Bellamy keeps a regional distribution hub running around the clock, coaches his son's flag-football "
       "team, and unwinds with blues guitar and slow-smoked ribs.",
       team_lead="He runs the hub's daily operations meeting with his shift leads.",
       busy="His phone rings at all hours when trucks are late.",
       organised="He tracks every open issue in a running log.",
       music="He plays blues guitar at a Beale Street open mic.",
       family="His teenagers' games set his weekend schedule.",
       cooking="He smokes ribs for every family cookout.",
       work_travel="He drives or flies to partner warehouses monthly.",
       cautious="He wants to see cancellations before they go through.",
       comfort="At six foot four he needs legroom on any flight.",
       budget="He watches household subscriptions closely."),
)


def personas(n: int) -> list[PersonaSeed]:
    """The first ``n`` personas: the twenty written ones, then derived ones (see :func:`derived`)."""
    if n < 1:
        raise ValueError(f"n_personas must be at least 1, got {n}")
    return [PERSONAS[k] if k < len(PERSONAS) else derived(k) for k in range(n)]


def derived(k: int) -> PersonaSeed:
    """Persona number ``k`` (from 0) beyond the written ones, for larger cohorts.

    It keeps the life of written persona ``k mod 20`` (first name, pronouns, city, traits) under
    another surname, so it gets its own id and so its own rules and sessions (every generator RNG
    is seeded by the persona id). Deterministic; the written twenty are never changed.
    """
    n = len(PERSONAS)
    if k < n:
        return PERSONAS[k]
    base, g = PERSONAS[k % n], k // n - 1  # g: which derived generation, from 0
    shift, rnd = g % (n - 1) + 1, g // (n - 1)  # another persona's surname, never the base's own
    name = f"{base.first_name} {PERSONAS[(k + shift) % n].name.split()[-1]}"
    pid = name.lower().replace(" ", "_").replace("-", "_") + (f"_{rnd + 1}" if rnd else "")
    swap = lambda text: text.replace(base.name, name)  # noqa: E731
    return PersonaSeed(pid, name, base.sex, base.age, base.occupation, base.city, base.state, base.household,
                       base.hobbies, swap(base.summary), {t: swap(v) for t, v in base.traits.items()})
