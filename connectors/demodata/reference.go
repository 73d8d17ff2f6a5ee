package demodata

// Fixed reference data. It does not depend on the seed, so regions, states
// and categories keep the same ids in every generated warehouse.

// Region ids follow the US Census Bureau's numbering of its four regions.
const (
	regionNortheast = 1
	regionMidwest   = 2
	regionSouth     = 3
	regionWest      = 4
)

var regionNames = [...]string{regionNortheast: "Northeast", regionMidwest: "Midwest", regionSouth: "South", regionWest: "West"}

type stateInfo struct {
	code, name string
	region     int
	popM       float64 // 2020 census population in millions: customer and order weights
	cities     []string
}

// states lists the 50 states and DC in alphabetical order of their names.
// Several city names repeat across states on purpose (Portland, Springfield,
// Kansas City, Columbia, Charleston): a city alone does not identify a place.
var states = []stateInfo{
	{"AL", "Alabama", regionSouth, 5.02, []string{"Birmingham", "Montgomery", "Huntsville", "Mobile"}},
	{"AK", "Alaska", regionWest, 0.73, []string{"Anchorage", "Fairbanks", "Juneau"}},
	{"AZ", "Arizona", regionWest, 7.15, []string{"Phoenix", "Tucson", "Mesa", "Scottsdale"}},
	{"AR", "Arkansas", regionSouth, 3.01, []string{"Little Rock", "Fayetteville", "Fort Smith"}},
	{"CA", "California", regionWest, 39.54, []string{"Los Angeles", "San Diego", "San Jose", "San Francisco", "Sacramento", "Fresno", "Oakland"}},
	{"CO", "Colorado", regionWest, 5.77, []string{"Denver", "Colorado Springs", "Aurora", "Boulder"}},
	{"CT", "Connecticut", regionNortheast, 3.61, []string{"Bridgeport", "New Haven", "Hartford", "Stamford"}},
	{"DE", "Delaware", regionSouth, 0.99, []string{"Wilmington", "Dover", "Newark"}},
	{"DC", "District of Columbia", regionSouth, 0.69, []string{"Washington"}},
	{"FL", "Florida", regionSouth, 21.54, []string{"Jacksonville", "Miami", "Tampa", "Orlando", "Tallahassee"}},
	{"GA", "Georgia", regionSouth, 10.71, []string{"Atlanta", "Savannah", "Augusta", "Athens"}},
	{"HI", "Hawaii", regionWest, 1.46, []string{"Honolulu", "Hilo", "Kailua"}},
	{"ID", "Idaho", regionWest, 1.84, []string{"Boise", "Meridian", "Idaho Falls"}},
	{"IL", "Illinois", regionMidwest, 12.81, []string{"Chicago", "Aurora", "Naperville", "Springfield", "Peoria"}},
	{"IN", "Indiana", regionMidwest, 6.79, []string{"Indianapolis", "Fort Wayne", "Evansville", "Bloomington"}},
	{"IA", "Iowa", regionMidwest, 3.19, []string{"Des Moines", "Cedar Rapids", "Davenport", "Iowa City"}},
	{"KS", "Kansas", regionMidwest, 2.94, []string{"Wichita", "Overland Park", "Kansas City", "Topeka"}},
	{"KY", "Kentucky", regionSouth, 4.51, []string{"Louisville", "Lexington", "Bowling Green"}},
	{"LA", "Louisiana", regionSouth, 4.66, []string{"New Orleans", "Baton Rouge", "Shreveport", "Lafayette"}},
	{"ME", "Maine", regionNortheast, 1.36, []string{"Portland", "Lewiston", "Bangor"}},
	{"MD", "Maryland", regionSouth, 6.18, []string{"Baltimore", "Columbia", "Frederick", "Annapolis"}},
	{"MA", "Massachusetts", regionNortheast, 7.03, []string{"Boston", "Worcester", "Springfield", "Cambridge"}},
	{"MI", "Michigan", regionMidwest, 10.08, []string{"Detroit", "Grand Rapids", "Ann Arbor", "Lansing"}},
	{"MN", "Minnesota", regionMidwest, 5.71, []string{"Minneapolis", "Saint Paul", "Rochester", "Duluth"}},
	{"MS", "Mississippi", regionSouth, 2.96, []string{"Jackson", "Gulfport", "Hattiesburg"}},
	{"MO", "Missouri", regionMidwest, 6.15, []string{"Kansas City", "St. Louis", "Springfield", "Columbia"}},
	{"MT", "Montana", regionWest, 1.08, []string{"Billings", "Missoula", "Bozeman", "Helena"}},
	{"NE", "Nebraska", regionMidwest, 1.96, []string{"Omaha", "Lincoln", "Grand Island"}},
	{"NV", "Nevada", regionWest, 3.10, []string{"Las Vegas", "Henderson", "Reno"}},
	{"NH", "New Hampshire", regionNortheast, 1.38, []string{"Manchester", "Nashua", "Concord"}},
	{"NJ", "New Jersey", regionNortheast, 9.29, []string{"Newark", "Jersey City", "Paterson", "Princeton"}},
	{"NM", "New Mexico", regionWest, 2.12, []string{"Albuquerque", "Las Cruces", "Santa Fe"}},
	{"NY", "New York", regionNortheast, 20.20, []string{"New York", "Buffalo", "Rochester", "Albany", "Syracuse"}},
	{"NC", "North Carolina", regionSouth, 10.44, []string{"Charlotte", "Raleigh", "Greensboro", "Durham"}},
	{"ND", "North Dakota", regionMidwest, 0.78, []string{"Fargo", "Bismarck", "Grand Forks"}},
	{"OH", "Ohio", regionMidwest, 11.80, []string{"Columbus", "Cleveland", "Cincinnati", "Toledo", "Akron", "Dayton"}},
	{"OK", "Oklahoma", regionSouth, 3.96, []string{"Oklahoma City", "Tulsa", "Norman"}},
	{"OR", "Oregon", regionWest, 4.24, []string{"Portland", "Eugene", "Salem", "Bend"}},
	{"PA", "Pennsylvania", regionNortheast, 13.00, []string{"Philadelphia", "Pittsburgh", "Allentown", "Harrisburg"}},
	{"RI", "Rhode Island", regionNortheast, 1.10, []string{"Providence", "Warwick", "Cranston"}},
	{"SC", "South Carolina", regionSouth, 5.12, []string{"Charleston", "Columbia", "Greenville"}},
	{"SD", "South Dakota", regionMidwest, 0.89, []string{"Sioux Falls", "Rapid City", "Aberdeen"}},
	{"TN", "Tennessee", regionSouth, 6.91, []string{"Nashville", "Memphis", "Knoxville", "Chattanooga"}},
	{"TX", "Texas", regionSouth, 29.15, []string{"Houston", "San Antonio", "Dallas", "Austin", "Fort Worth", "El Paso"}},
	{"UT", "Utah", regionWest, 3.27, []string{"Salt Lake City", "Provo", "Ogden", "St. George"}},
	{"VT", "Vermont", regionNortheast, 0.64, []string{"Burlington", "Montpelier", "Rutland"}},
	{"VA", "Virginia", regionSouth, 8.63, []string{"Virginia Beach", "Richmond", "Arlington", "Norfolk"}},
	{"WA", "Washington", regionWest, 7.71, []string{"Seattle", "Spokane", "Tacoma", "Bellevue"}},
	{"WV", "West Virginia", regionSouth, 1.79, []string{"Charleston", "Huntington", "Morgantown"}},
	{"WI", "Wisconsin", regionMidwest, 5.89, []string{"Milwaukee", "Madison", "Green Bay"}},
	{"WY", "Wyoming", regionWest, 0.58, []string{"Cheyenne", "Casper", "Laramie"}},
}

type categoryInfo struct {
	name     string
	maxQty   int // typical largest quantity on a business order line
	products []catalogueItem
}

// catalogueItem is a catalogue entry: name and typical list price in dollars
// (each seed moves the price a little).
type catalogueItem struct {
	name  string
	price float64
}

var categories = []categoryInfo{
	{"Office Supplies", 12, []catalogueItem{
		{"Ballpoint Pens, 12-Pack", 9.99}, {"Gel Pens, 12-Pack", 11.99}, {"Permanent Markers, 4-Pack", 8.49}, {"Highlighters, 6-Pack", 6.99},
		{"Dry Erase Markers, 8-Pack", 12.99}, {"Mechanical Pencils, 10-Pack", 7.99}, {"Sticky Notes, 12 Pads", 14.99}, {"Spiral Notebook", 3.49},
		{"Legal Pads, 12-Pack", 13.99}, {"Composition Notebook", 2.99}, {"Stapler", 15.99}, {"Staples, 5000 Count", 6.49}, {"Paper Clips, 1000 Count", 4.99},
		{"Binder Clips, Assorted", 7.49}, {"3-Ring Binder, 1 Inch", 5.99}, {"3-Ring Binder, 2 Inch", 8.99}, {"Sheet Protectors, 100-Pack", 11.49},
		{"File Folders, 100-Pack", 19.99}, {"Hanging File Folders, 25-Pack", 17.99}, {"Scissors", 8.99}, {"Tape Dispenser", 9.49},
		{"Clear Tape, 6 Rolls", 10.99}, {"Desk Organizer", 24.99}, {"Index Cards, 500 Count", 6.99}, {"Rubber Bands, 1 lb", 4.49},
		{"Copy Paper, Case of 10 Reams", 54.99}, {"Copy Paper, Single Ream", 6.49}, {"Envelopes #10, 500 Count", 21.99}, {"Calculator", 19.99},
		{"Whiteboard Eraser", 4.99},
	}},
	{"Furniture", 4, []catalogueItem{
		{"Ergonomic Mesh Office Chair", 329}, {"Executive Leather Chair", 649}, {"Task Chair", 189}, {"Guest Chair", 139}, {"Stacking Chair", 59},
		{"Standing Desk Converter", 219}, {"Electric Standing Desk", 599}, {"L-Shaped Desk", 449}, {"Writing Desk", 249},
		{"Conference Table, 8 Seats", 899}, {"Round Meeting Table", 399}, {"Lateral File Cabinet, 2 Drawers", 289},
		{"Mobile Pedestal, 3 Drawers", 229}, {"Bookcase, 5 Shelves", 169}, {"Storage Cabinet", 279}, {"Reception Desk", 1199}, {"Lounge Sofa", 849},
		{"Bar Stool", 119}, {"Monitor Stand", 49}, {"Footrest", 39}, {"Anti-Fatigue Mat", 44}, {"Whiteboard, 4 x 6 ft", 179}, {"Cork Board, 3 x 4 ft", 89},
		{"Coat Rack", 69}, {"Desk Lamp", 59}, {"Under-Desk Treadmill", 499},
	}},
	{"Electronics", 5, []catalogueItem{
		{"27-Inch Monitor", 289}, {"24-Inch Monitor", 189}, {"Laptop, 14-Inch", 899}, {"Laptop, 16-Inch", 1399}, {"Docking Station", 219},
		{"Wireless Keyboard", 59}, {"Wireless Mouse", 29}, {"Ergonomic Mouse", 49}, {"USB-C Hub", 39}, {"Webcam 1080p", 79},
		{"Conference Speakerphone", 149}, {"Noise-Cancelling Headset", 129}, {"Surge Protector", 29}, {"External SSD, 1 TB", 109},
		{"USB Flash Drive, 64 GB", 12}, {"Tablet, 11-Inch", 449}, {"Label Maker", 59}, {"Projector", 599}, {"Wi-Fi Router", 139},
		{"Network Switch, 8 Ports", 49}, {"Portable Charger", 39}, {"HDMI Cable, 6 ft", 12}, {"Desk Phone", 99}, {"Cross-Cut Shredder", 189},
		{"Wireless Presenter", 39}, {"Laptop Stand", 49}, {"Bluetooth Speaker", 79}, {"Smart Plug, 4-Pack", 39}, {"Batteries AA, 24-Pack", 19},
		{"Batteries AAA, 24-Pack", 19}, {"AI Meeting Recorder", 179},
	}},
	{"Software", 10, []catalogueItem{
		{"Office Suite, 1-Year License", 99}, {"Antivirus, 5 Devices", 69}, {"Accounting Software", 349}, {"Project Management, Annual", 299},
		{"PDF Editor", 149}, {"Cloud Backup, 1 TB", 99}, {"Password Manager, Team", 199}, {"Video Conferencing, Annual", 179},
		{"Design Suite, Annual", 599}, {"Tax Preparation Software", 89}, {"Payroll Service, Annual", 499}, {"Email Security, Annual", 149},
		{"Remote Desktop, Annual", 129}, {"E-Signature, Annual", 119}, {"Inventory Software", 399},
	}},
	{"Printers & Ink", 8, []catalogueItem{
		{"Laser Printer, Monochrome", 249}, {"Laser Printer, Color", 449}, {"All-in-One Inkjet Printer", 179}, {"Wide-Format Printer", 1299},
		{"Label Printer", 149}, {"Receipt Printer", 229}, {"Black Toner Cartridge", 89}, {"Cyan Toner Cartridge", 99}, {"Magenta Toner Cartridge", 99},
		{"Yellow Toner Cartridge", 99}, {"High-Yield Black Toner", 149}, {"Black Ink Cartridge", 39}, {"Color Ink Cartridge", 44},
		{"Ink Value Pack", 119}, {"Drum Unit", 79}, {"Photo Paper, 100 Sheets", 24}, {"Cardstock, 250 Sheets", 19}, {"Shipping Labels, 1000", 34},
		{"Thermal Paper Rolls, 50", 49}, {"Printer Cable, USB", 12}, {"Duplex Unit", 129}, {"Maintenance Kit", 149}, {"Toner Collection Box", 29},
		{"Transparency Film, 50 Sheets", 29}, {"Glossy Brochure Paper", 27},
	}},
	{"Breakroom", 12, []catalogueItem{
		{"Ground Coffee, 2 lb", 18}, {"Coffee Pods, 96 Count", 49}, {"Assorted Tea, 100 Bags", 12}, {"Bottled Water, 24-Pack", 6},
		{"Sparkling Water, 24-Pack", 14}, {"Paper Cups, 500 Count", 22}, {"Coffee Creamer, 200 Count", 15}, {"Sugar Packets, 1000", 11},
		{"Paper Plates, 500", 24}, {"Plastic Cutlery Kit", 18}, {"Snack Variety Box", 39}, {"Granola Bars, 48 Count", 21},
		{"Microwave", 119}, {"Coffee Maker, 12 Cup", 79}, {"Electric Kettle", 35}, {"Mini Fridge", 189}, {"Water Dispenser", 229},
		{"Paper Napkins, 1000", 12}, {"Stirrers, 1000", 6}, {"Trail Mix, 3 lb", 24}, {"Compostable Coffee Pods, 96 Count", 54},
	}},
	{"Cleaning", 12, []catalogueItem{
		{"Paper Towels, 12 Rolls", 29}, {"Toilet Paper, 48 Rolls", 59}, {"Disinfecting Wipes, 3-Pack", 18}, {"Hand Soap Refill", 16},
		{"Hand Sanitizer, 1 Gallon", 42}, {"Trash Bags, 13 Gallon", 24}, {"Trash Bags, 33 Gallon", 38}, {"All-Purpose Cleaner", 8},
		{"Glass Cleaner", 6}, {"Floor Cleaner", 9}, {"Microfiber Cloths, 24-Pack", 19}, {"Nitrile Gloves, 100 Count", 14},
		{"Mop and Bucket Set", 69}, {"Broom and Dustpan", 24}, {"Vacuum Cleaner", 249}, {"Air Freshener", 7}, {"Dish Soap", 6},
		{"Sponges, 12-Pack", 9}, {"Facial Tissues, 12 Boxes", 28}, {"Recycling Bin", 49},
	}},
	{"Shipping & Mailing", 10, []catalogueItem{
		{"Shipping Boxes, Small, 25", 32}, {"Shipping Boxes, Medium, 25", 38}, {"Shipping Boxes, Large, 25", 46},
		{"Bubble Mailers, 50", 29}, {"Poly Mailers, 100", 24}, {"Packing Tape, 6 Rolls", 18}, {"Tape Gun", 22}, {"Bubble Wrap Roll", 39},
		{"Packing Peanuts", 19}, {"Postal Scale", 59}, {"Kraft Paper Roll", 34}, {"Stretch Wrap", 44}, {"Fragile Labels, 500", 15},
		{"Padded Envelopes, 25", 24}, {"Document Mailers, 50", 36},
	}},
}

// newArrivals were added to the catalogue at the end of October 2026 and
// have not sold yet, so "products never ordered" has an answer.
var newArrivals = map[string]bool{"Under-Desk Treadmill": true, "AI Meeting Recorder": true, "Compostable Coffee Pods, 96 Count": true}

var firstNames = []string{
	"James", "Mary", "Robert", "Patricia", "John", "Jennifer", "Michael", "Linda", "David", "Elizabeth",
	"William", "Barbara", "Richard", "Susan", "Joseph", "Jessica", "Thomas", "Sarah", "Charles", "Karen",
	"Christopher", "Lisa", "Daniel", "Nancy", "Matthew", "Betty", "Anthony", "Margaret", "Mark", "Sandra",
	"Donald", "Ashley", "Steven", "Kimberly", "Paul", "Emily", "Andrew", "Donna", "Joshua", "Michelle",
	"Kenneth", "Carol", "Kevin", "Amanda", "Brian", "Melissa", "George", "Deborah", "Timothy", "Stephanie",
	"Ronald", "Rebecca", "Jason", "Sharon", "Edward", "Laura", "Jeffrey", "Cynthia", "Ryan", "Amy",
	"Jacob", "Kathleen", "Gary", "Angela", "Nicholas", "Shirley", "Eric", "Brenda", "Jonathan", "Emma",
	"Stephen", "Anna", "Larry", "Pamela", "Justin", "Nicole", "Scott", "Samantha", "Brandon", "Katherine",
	"Benjamin", "Christine", "Samuel", "Helen", "Gregory", "Debra", "Alexander", "Rachel", "Patrick", "Carolyn",
	"Frank", "Janet", "Raymond", "Maria", "Jack", "Olivia", "Dennis", "Heather", "Jerry", "Diane",
	"Tyler", "Julie", "Aaron", "Joyce", "José", "Victoria", "Adam", "Ruth", "Nathan", "Virginia",
	"Henry", "Lauren", "Zachary", "Kelly", "Douglas", "Christina", "Peter", "Joan", "Kyle", "Evelyn",
	"Noah", "Judith", "Ethan", "Andrea", "Jeremy", "Hannah", "Walter", "Megan", "Christian", "Cheryl",
	"Keith", "Jacqueline", "Roger", "Martha", "Terry", "Madison", "Austin", "Teresa", "Sean", "Gloria",
	"Gerald", "Sara", "Carl", "Janice", "Harold", "Ann", "Dylan", "Kathryn", "Arthur", "Abigail",
	"Lawrence", "Sophia", "Jordan", "Frances", "Jesse", "Jean", "Bryan", "Alice", "Billy", "Judy",
	"Bruce", "Isabella", "Gabriel", "Julia", "Joe", "Grace", "Logan", "Amber", "Alan", "Denise",
	"Juan", "Danielle", "Albert", "Marilyn", "Willie", "Beverly", "Elijah", "Charlotte", "Wayne", "Natalie",
	"Randy", "Theresa", "Vincent", "Diana", "Mason", "Brittany", "Roy", "Doris", "Ralph", "Kayla",
	"Bobby", "Alexis", "Russell", "Lori", "Bradley", "Marie", "Philip", "Zoë", "Eugene", "Priya",
	"Wei", "Mei", "Raj", "Aisha", "Omar", "Fatima", "Hiroshi", "Yuki", "Mateo", "Sofía",
}

var lastNames = []string{
	"Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez",
	"Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson", "Martin",
	"Lee", "Perez", "Thompson", "White", "Harris", "Sanchez", "Clark", "Ramirez", "Lewis", "Robinson",
	"Walker", "Young", "Allen", "King", "Wright", "Scott", "Torres", "Nguyen", "Hill", "Flores",
	"Green", "Adams", "Nelson", "Baker", "Hall", "Rivera", "Campbell", "Mitchell", "Carter", "Roberts",
	"Gomez", "Phillips", "Evans", "Turner", "Diaz", "Parker", "Cruz", "Edwards", "Collins", "Reyes",
	"Stewart", "Morris", "Morales", "Murphy", "Cook", "Rogers", "Gutierrez", "Ortiz", "Morgan", "Cooper",
	"Peterson", "Bailey", "Reed", "Kelly", "Howard", "Ramos", "Kim", "Cox", "Ward", "Richardson",
	"Watson", "Brooks", "Chavez", "Wood", "James", "Bennett", "Gray", "Mendoza", "Ruiz", "Hughes",
	"Price", "Alvarez", "Castillo", "Sanders", "Patel", "Myers", "Long", "Ross", "Foster", "Jimenez",
	"Powell", "Jenkins", "Perry", "Russell", "Sullivan", "Bell", "Coleman", "Butler", "Henderson", "Barnes",
	"Gonzales", "Fisher", "Vasquez", "Simmons", "Romero", "Jordan", "Patterson", "Alexander", "Hamilton", "Graham",
	"Reynolds", "Griffin", "Wallace", "Moreno", "West", "Cole", "Hayes", "Bryant", "Herrera", "Gibson",
	"Ellis", "Tran", "Medina", "Aguilar", "Stevens", "Murray", "Ford", "Castro", "Marshall", "Owens",
	"O'Brien", "O'Connor", "D'Angelo", "Muñoz", "Peña", "Chen", "Wang", "Singh", "Shah", "Yamamoto",
	"Kowalski", "Schmidt", "Novak", "Larsen", "Fischer", "Rossi", "Dubois", "MacDonald", "Fitzgerald", "Okafor",
}

// Company name parts for small businesses and enterprises.
var companyWords = []string{
	"Maple", "Cedar", "Blue Harbor", "Silver Lake", "Granite", "Redwood", "Pine Hill", "Riverbend", "Oak Street",
	"Lakeside", "Northgate", "Bright Path", "Prairie", "Evergreen", "Sunrise", "Copper", "Ironwood",
	"Willow Creek", "Stonebridge", "Bayview", "Highland", "Meadowlark", "Crescent", "Summit", "Keystone",
	"Liberty", "Pioneer", "Frontier", "Heritage", "Beacon", "Lantern", "Anchor", "Compass", "Birch", "Aspen",
	"Juniper", "Sagebrush", "Coral", "Clearwater", "Foxglove", "Bluebird", "Harvest", "Red Rock", "Timberline",
	"Golden Field", "Cypress", "Magnolia", "Sycamore", "Falcon", "Orchard",
}

var smallBusinessTrades = []string{
	"Bakery", "Dental", "Family Law", "Accounting", "Realty", "Auto Repair", "Yoga Studio", "Veterinary Clinic",
	"Coffee Roasters", "Pediatrics", "Architects", "Print Shop", "Florist", "Plumbing", "Landscaping",
	"Insurance Agency", "Chiropractic", "Tutoring", "Salon", "Brewing Co.", "Design Studio", "Physical Therapy",
	"Pharmacy", "Bookkeeping", "Marketing", "Dance Academy", "Pet Grooming", "Bike Shop", "Bistro", "Montessori School",
}

var enterpriseIndustries = []string{
	"Logistics", "Health Systems", "Financial Group", "Manufacturing", "Energy", "Software", "Biotech",
	"Capital Partners", "Hospitality Group", "Engineering", "Media", "Foods", "Insurance", "Telecom",
	"Aerospace", "Pharmaceuticals", "Retail Group", "Construction", "Analytics", "Medical Center",
}

var enterpriseSuffixes = []string{"Inc.", "Corp.", "LLC", "Holdings", "Co.", "Group"}

var emailDomains = []string{"gmail.com", "yahoo.com", "outlook.com", "icloud.com", "hotmail.com", "aol.com", "proton.me"}

var carriers = []struct {
	name   string
	weight float64
}{{"UPS", 0.40}, {"FedEx", 0.30}, {"USPS", 0.20}, {"DHL", 0.10}}

var refundReasons = []string{"Damaged in transit", "Wrong item shipped", "Item not as described", "Changed mind", "Arrived late"}
