//! The word lists the text attacks read: which capitalised words are never people, which words
//! around a name make it a title's, a place's or a thing's, the verbs that show someone acting,
//! and the nouns a no-op sentence may speak of. Kept apart from the logic so that a reader can
//! audit them at a glance.

/// Singular nouns of animals: a name beside one is an animal's ("Gunther, the gorilla", "his
/// dog Rex"), never renamed.
#[rustfmt::skip]
pub(super) const ANIMAL: &[&str] = &[
    "dog", "cat", "puppy", "kitten", "horse", "pony", "bird", "parrot", "hamster", "fish",
    "goldfish", "rabbit", "bunny", "turtle", "tortoise", "pig", "cow", "goat", "sheep", "lamb",
    "chicken", "hen", "rooster", "duck", "goose", "frog", "toad", "snake", "lizard", "gorilla",
    "chimpanzee", "monkey", "ape", "elephant", "lion", "tiger", "bear", "giraffe", "zebra",
    "whale", "shark", "dolphin", "owl", "eagle", "albatross", "seagull", "penguin", "mouse", "rat",
    "squirrel", "fox", "wolf", "deer", "camel", "donkey", "llama", "alpaca", "sloth", "kangaroo",
    "koala", "panda", "dinosaur", "dragon", "unicorn", "spider", "bee", "ant", "butterfly",
    "caterpillar", "crab", "octopus", "snail", "worm", "beetle", "porcupine", "hedgehog",
    "raccoon", "skunk", "beaver", "otter", "seal", "crocodile", "alligator", "pet", "cub", "calf",
    "foal", "t", "rex",
];

/// Capitalised words that are never a person's name here: sentence openers, days, months,
/// holidays, languages and peoples, brands, subjects.
#[rustfmt::skip]
pub(super) const NEVER: &[&str] = &[
    "A", "About", "After", "All", "Also", "Altogether", "Among", "An", "And", "Another", "Any",
    "As", "Assume", "Assuming", "At", "Because", "Before", "Besides", "Both", "But", "By",
    "Calculate", "Consider", "Currently", "Determine", "During", "Each", "Either", "Every",
    "Everyone", "Find", "Finally", "First", "For", "From", "Given", "Half", "He", "Her", "Here",
    "His", "How", "However", "I", "If", "In", "Including", "Initially", "Instead", "It", "Its",
    "Last", "Lastly", "Later", "Let", "Meanwhile", "Most", "My", "Next", "No", "Not", "Now", "Of",
    "On", "Once", "One", "Only", "Or", "Originally", "Our", "Out", "Over", "Overall", "Per",
    "Recently", "Second", "She", "Since", "So", "Some", "Suppose", "That", "The", "Their", "Then",
    "There", "These", "They", "Third", "This", "Those", "Three", "To", "Today", "Together",
    "Tomorrow", "Tonight", "Two", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten",
    "Eleven", "Twelve", "Twenty", "Thirty", "Fifty", "Hundred", "Mondays", "Tuesdays",
    "Wednesdays", "Thursdays", "Fridays", "Saturdays", "Sundays", "Although", "Though", "Unless", "Whenever", "Whether", "Under",
    "Until", "Usually", "We", "What", "When", "Where", "Which", "While", "Who", "Why", "With",
    "Without", "Yesterday", "You", "Your", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday",
    "Saturday", "Sunday", "January", "February", "March", "April", "May", "June", "July", "August",
    "September", "October", "November", "December", "Christmas", "Easter", "Halloween",
    "Thanksgiving", "Valentine", "New", "Year", "English", "Spanish", "French", "German", "Chinese",
    "Japanese", "Italian", "Mexican", "American", "Canadian", "British", "Scottish", "Irish",
    "Indian", "African", "European", "Asian", "Math", "Science", "History", "Pokemon", "Facebook",
    "Instagram", "Twitter", "Youtube", "Amazon", "Google", "Netflix", "Walmart", "Costco", "Lego",
    "Celsius", "Fahrenheit", "Earth", "Mars", "Moon", "Sun", "God", "Internet", "Olympics",
    "Spring", "Summer", "Fall", "Autumn", "Winter", "North", "South", "East", "West", "Prince",
    "Princess", "Right", "Windows", "Santa", "Digimon", "Lego", "Disney", "Nintendo", "Apple", "Samsung", "Toyota",
    "Honda", "India", "China", "Japan", "France", "Germany", "Italy", "Spain", "Mexico", "Canada",
    "Brazil", "Chile", "Peru", "Russia", "Egypt", "Kenya", "Australia", "England", "Scotland",
    "Ireland", "America", "Africa", "Europe", "Asia", "Texas", "Florida", "California", "Alaska",
    "Paris", "London", "Rome", "Tokyo", "Boston", "Chicago",
];

/// Words before a name that make it a title's: the titled person keeps the name.
#[rustfmt::skip]
pub(super) const TITLES: &[&str] = &[
    "Mr", "Mrs", "Ms", "Miss", "Mx", "Dr", "Doctor", "Professor", "Prof", "Aunt", "Auntie", "Uncle",
    "Grandma", "Grandpa", "Granny", "Grandmother", "Grandfather", "Nana", "Coach", "Officer",
    "Captain", "Sir", "Lady", "Lord", "King", "Queen", "Saint", "St", "Madam", "Mister", "Chef",
    "Judge", "Pastor", "Reverend", "Rev", "Principal", "Senator", "President", "Sergeant", "Farmer",
    "Teacher", "Nurse", "Mom", "Dad", "Mother", "Father", "Sister", "Brother",
];

/// Titles that say their person is a woman.
#[rustfmt::skip]
pub(super) const FEMALE_TITLES: &[&str] = &[
    "Mrs", "Ms", "Miss", "Aunt", "Auntie", "Grandma", "Granny", "Grandmother", "Nana", "Lady",
    "Queen", "Madam", "Mom", "Mother", "Sister",
];

/// Titles that say their person is a man.
#[rustfmt::skip]
pub(super) const MALE_TITLES: &[&str] = &[
    "Mr", "Uncle", "Grandpa", "Grandfather", "Sir", "Lord", "King", "Mister", "Dad", "Father",
    "Brother",
];

/// Words before a capitalised word that make it a person in a story about people ("gives 30 to
/// Nicky", "her friend Johanna").
#[rustfmt::skip]
pub(super) const PERSON_BEFORE: &[&str] = &[
    "to", "than", "as", "and", "with", "friend", "colleague", "sister",
    "brother", "cousin", "neighbor", "neighbour", "mother", "father", "mom", "dad", "son",
    "daughter", "wife", "husband", "boyfriend", "girlfriend", "partner", "roommate", "classmate",
    "teammate", "boss", "coworker", "named", "called",
];

/// Lower-case words before a capitalised word that make it a thing or a place, not a person
/// ("a Rottweiler", "the Hortex company", "team Alphas", "in Jordan").
#[rustfmt::skip]
pub(super) const THING_BEFORE: &[&str] = &[
    "a",
    "an",
    "the",
    "each",
    "every",
    "my",
    "our",
    "your",
    "their",
    "its",
    "team",
    "company",
    "brand",
    "city",
    "town",
    "country",
    "state",
    "planet",
    "store",
    "shop",
    "restaurant",
    "hotel",
    "school",
    "street",
    "river",
    "lake",
    "mount",
    "club",
    "group",
    "village",
    "in",
    "at",
    "near",
    "inside",
    "outside",
    "across",
    "around",
];

/// Verbs (and a few adverbs before them) that show a capitalised word is someone acting.
#[rustfmt::skip]
pub(super) const ACTS: &[&str] = &[
    "is", "was", "has", "had", "have", "can", "could", "will", "would", "should", "must", "does",
    "did", "just", "also", "only", "already", "usually", "always", "often", "still", "wants",
    "wanted", "needs", "needed", "decides", "decided", "buys", "bought", "sells", "sold", "makes",
    "made", "gets", "got", "goes", "went", "takes", "took", "earns", "earned", "spends", "spent",
    "pays", "paid", "uses", "used", "runs", "ran", "reads", "eats", "ate", "drinks", "drank",
    "works", "worked", "plays", "played", "gives", "gave", "saves", "saved", "starts", "started",
    "finds", "found", "collects", "collected", "owns", "walks", "walked", "drives", "drove",
    "picks", "picked", "plants", "planted", "bakes", "baked", "rides", "rode", "writes", "wrote",
    "receives", "received", "loves", "likes", "liked", "visits", "visited", "invites", "invited",
    "orders", "ordered", "brings", "brought", "keeps", "kept", "counts", "counted", "joins",
    "joined", "hires", "hired", "charges", "charged", "sees", "saw", "says", "said", "thinks",
    "knows", "weighs", "scored", "scores", "lives", "lived", "travels", "traveled", "travelled",
    "swims", "jumps", "climbs", "cuts", "cooks", "cooked", "fills", "filled", "shares", "shared",
    "divides", "splits", "gathers", "catches", "caught", "grows", "grew", "builds", "built",
    "practices", "studies", "sleeps", "watches", "watched", "sends", "sent", "puts", "owes",
    "borrows", "borrowed", "lends", "lent", "invests", "invested", "delivers", "delivered", "packs",
    "packed", "mows", "washes", "sews", "knits", "paints", "painted", "sings", "dances", "went",
    "needs", "wins", "won", "loses", "lost", "ordered", "received", "tries", "tried", "answers",
    "answered", "jogs", "hikes", "pours", "raises", "raised", "adopts", "adopted", "feeds", "fed",
    "teaches", "taught", "creates", "created", "designs", "rents", "rented", "bikes", "carries",
    "carried", "wears", "pay", "buy", "get", "need", "spend", "make", "earn", "take", "give",
    "sell", "save", "eat", "read", "run", "walk", "drive", "finished", "finishes", "threw",
    "throws", "meditates", "posted", "posts", "recycles", "learned", "learns", "records",
    "recorded", "signed", "signs", "sits", "sat", "stands", "stood", "flies", "flew", "donates",
    "donated", "spent", "prepared", "prepares", "spends", "goes", "left", "leaves", "arrives",
    "arrived", "calls", "called", "asks", "asked", "tells", "told", "helps", "helped", "begins",
    "began", "completes", "completed", "sleeps", "slept", "texts", "gets", "got", "notices",
    "noticed", "chooses", "chose", "agrees", "agreed", "sees", "decorates", "decorated", "fixes",
    "fixed", "cleans", "cleaned", "wakes", "woke", "gains", "gained", "lifts", "lifted", "types",
    "typed", "put", "ate", "cooks", "bakes", "loves", "hates", "wished", "wishes", "hopes",
    "plans", "planned", "records", "donates",
];

/// Capitalised words after a name that make the two a place or a business ("Sally's Bakery",
/// "Washington Street").
#[rustfmt::skip]
pub(super) const PLACE_AFTER: &[&str] = &[
    "Street", "Avenue", "Road", "Park", "School", "Elementary", "High", "Middle", "College",
    "University", "Store", "Shop", "Bakery", "Farm", "Farms", "Lake", "River", "Mountain", "Hill",
    "Bridge", "Hall", "Center", "Centre", "Mall", "Market", "Company", "Airlines", "Hotel",
    "Restaurant", "Cafe", "Library", "Museum", "Zoo", "Beach", "Island", "City", "County", "Town",
    "Village", "Hospital", "Church", "Station", "Stadium", "Theater", "Theatre", "Grill", "Diner",
    "Pizza", "Burger", "Inc", "Co", "Club", "Academy", "Shores", "Valley", "Woods", "Forest",
    "Bay", "Harbor", "Falls", "Springs", "Heights",
];

/// Singular nouns of a person a sentence may open with ("A merchant wants …", "The zookeeper
/// feeds …"): the no-op then speaks of "the merchant".
#[rustfmt::skip]
pub(super) const PERSON_NOUNS: &[&str] = &[
    "mom", "dad", "friend", "brother", "sister", "uncle", "aunt", "neighbor", "boss", "wife",
    "husband", "son", "daughter", "grandma", "grandpa", "caretaker", "cook", "lifeguard",
    "custodian", "housekeeper", "babysitter", "tutor", "instructor", "trainer", "volunteer",
    "merchant", "mother", "father", "trader", "agent", "zookeeper", "teacher", "farmer", "customer",
    "baker", "chef", "man", "woman", "student", "worker", "driver", "doctor", "nurse", "gardener",
    "carpenter", "plumber", "painter", "mechanic", "shopkeeper", "owner", "manager", "employee",
    "salesman", "saleswoman", "waiter", "waitress", "coach", "player", "athlete", "artist",
    "writer", "author", "tailor", "florist", "cashier", "landlord", "builder", "contractor",
    "electrician", "photographer", "dentist", "pilot", "firefighter", "policeman", "clerk",
    "vendor", "seller", "buyer", "shopper", "grandmother", "grandfather", "lady", "gentleman",
    "scientist", "programmer", "engineer", "architect", "lawyer", "banker", "investor", "homeowner",
    "tenant", "jeweler", "butcher", "fisherman", "hunter", "runner", "swimmer", "cyclist", "hiker",
    "seamstress", "boy", "girl", "child", "kid", "teenager", "principal", "librarian",
    "veterinarian", "beekeeper", "shepherd", "rancher", "chemist", "pharmacist", "janitor", "guard",
    "musician", "singer", "dancer", "chess player",
];

/// Plural nouns of people.
#[rustfmt::skip]
pub(super) const PEOPLE: &[&str] = &[
    "students", "friends", "kids", "children", "people", "guests", "teachers", "workers",
    "employees", "customers", "players", "members", "girls", "boys", "adults", "classmates",
    "passengers", "clients", "attendees", "pupils", "visitors", "campers", "volunteers", "seniors",
    "cheerleaders", "riders", "dancers", "singers", "tourists", "athletes", "swimmers", "runners",
    "babies", "parents", "neighbors", "cousins", "men", "women", "inhabitants", "residents",
    "citizens", "fans", "spectators", "participants", "contestants", "patients", "doctors",
    "nurses", "drivers", "farmers", "soldiers", "scouts", "graders", "teenagers", "toddlers",
    "shoppers", "diners", "musicians",
];

/// Plural nouns of animals.
#[rustfmt::skip]
pub(super) const ANIMALS: &[&str] = &[
    "dogs", "cats", "birds", "cows", "goats", "chickens", "horses", "pigs", "puppies", "kittens",
    "goldfish", "goldfishes", "guppies", "bees", "spiders", "insects", "crabs", "snails", "ants",
    "penguins", "hamsters", "rabbits", "ducks", "animals", "bears", "tadpoles", "frogs", "turtles",
    "lambs", "hens", "roosters", "ponies", "parrots", "butterflies", "lizards", "snakes", "mice",
    "sheep", "fish", "geese", "deer", "cobras", "mambas", "unicorns", "dinosaurs", "apes",
    "monkeys", "gorillas", "baboons", "elephants", "lions", "tigers", "zebras", "giraffes",
    "whales", "sharks", "dolphins", "owls", "eagles", "pigeons", "seagulls", "crows", "sparrows",
    "wolves", "foxes", "squirrels", "camels", "donkeys", "kangaroos", "pandas", "worms",
    "caterpillars", "beetles", "ladybugs", "seals", "otters", "llamas", "alpacas", "calves",
    "chicks", "ducklings", "hedgehogs", "flamingos", "peacocks", "swans", "pets", "ostriches",
];

/// Plural nouns of food.
#[rustfmt::skip]
pub(super) const FOOD: &[&str] = &[
    "cookies", "eggs", "apples", "bananas", "oranges", "cupcakes", "sandwiches", "lollipops",
    "candies", "loaves", "potatoes", "tomatoes", "lemons", "brownies", "watermelons", "carrots",
    "pizzas", "pies", "peaches", "muffins", "croissants", "bagels", "donuts", "doughnuts", "cakes",
    "cherries", "grapes", "berries", "strawberries", "blueberries", "almonds", "walnuts",
    "meatballs", "pineapples", "onions", "peppers", "sausages", "dumplings", "pomegranates",
    "cannolis", "popsicles", "marshmallows", "gumballs", "pears", "plums", "mangoes", "melons",
    "cucumbers", "pumpkins", "biscuits", "crackers", "pancakes", "waffles", "tacos", "burritos",
    "hamburgers", "burgers", "hotdogs", "chocolates", "truffles", "macarons", "avocados",
    "coconuts", "kiwis", "limes", "nuts", "peanuts", "pretzels",
];

/// Plural nouns of plants.
#[rustfmt::skip]
pub(super) const PLANTS: &[&str] = &[
    "roses", "flowers", "plants", "trees", "tulips", "sunflowers", "petunias", "dahlias",
    "geraniums", "bushes", "daisies", "lilies", "orchids", "seedlings", "cacti", "ferns",
];

/// Plural nouns of objects.
#[rustfmt::skip]
pub(super) const OBJECTS: &[&str] = &[
    "books", "balloons", "stickers", "cards", "pencils", "pens", "marbles", "toys", "balls",
    "shirts", "candles", "gifts", "presents", "chairs", "seashells", "shells", "cubes", "masks",
    "paintings", "jewels", "tubes", "newspapers", "wheels", "packages", "pictures", "blocks",
    "toothpicks", "bolts", "tires", "boards", "notebooks", "puzzles", "medals", "suits", "socks",
    "erasers", "blouses", "sapphires", "shoes", "sofas", "crayons", "mirrors", "bandages", "photos",
    "screws", "diamonds", "rubies", "magnets", "sneakers", "buttons", "vases", "computers", "tiles",
    "stamps", "baseballs", "basketballs", "footballs", "bicycles", "bikes", "hats", "dresses",
    "rings", "necklaces", "bracelets", "lamps", "spoons", "forks", "knives", "shovels", "rocks",
    "stones", "bricks", "planks", "phones", "laptops", "kites", "dolls", "figurines", "umbrellas",
    "towels", "blankets", "pillows", "jackets", "coats", "sweaters", "scarves", "gloves", "pants",
    "jeans", "skirts", "ties", "watches", "clocks", "cameras", "rulers", "brushes", "beads",
    "ribbons", "posters", "frames", "tickets", "coins", "pebbles", "flags", "uniforms", "robes",
    "poles", "benches", "doors", "pans", "helmets", "ladders", "fences", "statues", "trophies",
    "keys", "locks", "batteries", "bulbs", "candlesticks", "televisions", "radios", "guitars",
    "drums", "violins", "pianos", "logs", "bales",
];

/// Plural nouns of things that hold or carry others.
#[rustfmt::skip]
pub(super) const HOLDERS: &[&str] = &[
    "cars", "bags", "bottles", "pots", "crates", "tables", "beds", "boxes", "packs", "packets",
    "cages", "tubs", "jars", "dishes", "sacks", "baskets", "containers", "vehicles", "pails",
    "buses", "plates", "tins", "barrels", "houses", "suitcases", "tractors", "trays", "buckets",
    "bowls", "boats", "trucks", "cans", "backpacks", "wallets", "envelopes", "folders", "binders",
    "mugs", "glasses", "albums", "tents", "desks", "cabinets", "shelves", "trains", "planes",
    "ships", "wagons", "carts",
];

/// Singular nouns of things built, whose age a no-op may give.
#[rustfmt::skip]
pub(super) const BUILT: &[&str] = &[
    "bridge", "train", "plane", "car", "truck", "bus", "house", "store", "shop", "restaurant",
    "station", "library", "museum", "barn", "building", "factory", "bakery", "hotel", "boat",
    "ship", "theater", "hospital", "church", "stadium", "gym", "van", "tractor", "mall",
    "warehouse", "garage", "cabin", "tower", "playground", "auditorium", "classroom", "greenhouse",
    "office", "cafe", "diner", "supermarket", "school", "aquarium", "zoo", "farm",
    "park",
];

/// Singular nouns of organisations, whose age a no-op may give.
#[rustfmt::skip]
pub(super) const FOUNDED: &[&str] = &[
    "company", "team", "band", "club", "website", "business", "charity", "firm", "agency",
    "orchestra", "choir", "organization", "startup",
];

/// Singular nouns of works that came out, whose age a no-op may give.
#[rustfmt::skip]
pub(super) const RELEASED: &[&str] = &[
    "program", "app", "game", "movie", "film", "album", "song", "video", "podcast", "show",
    "novel", "series",
];

/// Singular nouns of plants, whose age a no-op may give.
#[rustfmt::skip]
pub(super) const PLANTED: &[&str] = &[
    "bush", "tree", "hedge", "orchard", "vineyard", "rosebush", "sunflower", "vine", "garden",
];

/// Singular nouns of made things, whose age a no-op may give.
#[rustfmt::skip]
pub(super) const MADE: &[&str] = &[
    "rug", "chair", "couch", "sofa", "table", "desk", "bed", "lamp", "oven", "fridge", "bike",
    "bicycle", "computer", "laptop", "phone", "piano", "guitar", "violin", "watch", "camera",
    "printer", "microwave", "dishwasher", "heater", "clock", "mirror", "cabinet", "bookshelf",
    "quilt", "blanket", "sweater", "scarf", "kite", "robot", "whirligig", "flag",
];

/// Singular nouns of a group a sentence may open with ("The Adams family"): the no-op speaks of
/// where it lives or has been.
#[rustfmt::skip]
pub(super) const GROUP_NOUNS: &[&str] = &[
    "family", "team", "group", "class", "club", "band", "choir", "crew", "couple",
];

/// Verbs of giving: "to" after one of them leads to a person ("gives 30 to Nicky").
#[rustfmt::skip]
pub(super) const GIVING: &[&str] = &[
    "give", "gives", "gave", "given", "sell", "sells", "sold", "lend", "lends", "lent", "send",
    "sends", "sent", "pay", "pays", "paid", "hand", "hands", "handed", "show", "shows", "showed",
    "tell", "tells", "told", "offer", "offers", "offered", "donate", "donates", "donated",
    "return", "returns", "returned", "owe", "owes", "owed", "passed", "passes", "mailed",
];

/// Owned nouns who could take their owner's pronouns ("Nate's dog … He digs", "Melanie's father
/// … brings him").
#[rustfmt::skip]
pub(super) const PRONOUN_TAKERS: &[&str] = &[
    "dog", "cat", "puppy", "kitten", "horse", "pet", "bird", "parrot", "hamster", "fish",
    "rabbit", "turtle", "pig", "cow", "goat", "pony", "father", "mother", "dad", "mom", "brother",
    "sister", "son", "daughter", "husband", "wife", "friend", "boyfriend", "girlfriend",
    "grandmother", "grandfather", "grandma", "grandpa", "uncle", "aunt", "cousin", "teacher",
    "boss", "neighbor", "coach", "baby", "child", "kid",
];
