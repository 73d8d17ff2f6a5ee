package offline

// Group conditions: "members with at least 3 loans", "books borrowed more
// than ten times", "customers with only one order", "members with fewer
// than 2 papers". A comparison whose number counts rows of a related table
// is a condition on how many each subject has: the subject's rows whose
// key is among those the related rows, grouped, count enough of (HAVING).
// "Fewer than" includes the subjects with none, so it is written as the
// complement of "at least".

// groupAlias names the grouped table of a group condition; each grouped
// table of a reading gets its own name when the reading is written.
const groupAlias = "counted"
