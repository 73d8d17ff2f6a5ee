package sqlguard

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Flavor selects the built-in functions a statement may call: each server
// family has its own, and a name that is harmless on one may be a stored
// function, a lock or a wait on another.
type Flavor string

// Flavors. FlavorAny accepts what any of them accepts; it is for checks
// made before the server is known (the warehouse checks again with its own).
const (
	FlavorAny     Flavor = ""
	FlavorMySQL   Flavor = "mysql"
	FlavorMariaDB Flavor = "mariadb"
	FlavorTiDB    Flavor = "tidb"
)

func (f Flavor) label() string {
	switch f {
	case FlavorMySQL:
		return "MySQL"
	case FlavorMariaDB:
		return "MariaDB"
	case FlavorTiDB:
		return "TiDB"
	}
	return "this warehouse"
}

// deniedFunctions stall the server, take locks, read server files, advance
// sequences, wait for replication, read other sessions' statements or run
// shell commands. They are refused whatever the configuration says. Keys
// are lower case, as ast.CIStr.L is.
var deniedFunctions = set(
	"sleep", "benchmark", "load_file",
	"get_lock", "release_lock", "release_all_locks", "is_free_lock", "is_used_lock",
	"master_pos_wait", "source_pos_wait", "master_gtid_wait", "wait_for_executed_gtid_set",
	"wait_until_sql_thread_after_gtids",
	"wsrep_last_seen_gtid", "wsrep_last_written_gtid", "wsrep_sync_wait_upto_gtid",
	"nextval", "setval", "lastval", "last_insert_id", "setvar", "getvar",
	"tidb_decode_sql_digests", "tidb_mvcc_info", "tidb_is_ddl_owner",
	"tidb_encode_record_key", "tidb_encode_index_key", "tidb_decode_base64_key",
	// lib_mysqludf_sys names, installed by attackers as loadable functions.
	"sys_eval", "sys_exec", "sys_get", "sys_set",
)

// commonFunctions are read-only built-ins of MySQL, MariaDB and TiDB, by
// the names the parser gives them (CHAR is char_func, INSERT insert_func,
// the ODBC and typed date literals their internal names).
var commonFunctions = set(
	// numbers
	"abs", "acos", "asin", "atan", "atan2", "ceil", "ceiling", "conv", "cos", "cot", "crc32",
	"degrees", "exp", "floor", "ln", "log", "log2", "log10", "mod", "pi", "pow", "power",
	"radians", "rand", "round", "sign", "sin", "sqrt", "tan", "truncate",
	// dates and times
	"adddate", "addtime", "convert_tz", "curdate", "current_date", "current_time",
	"current_timestamp", "curtime", "date", ast.DateLiteral, "date_add", "date_format", "date_sub",
	"datediff", "day", "dayname", "dayofmonth", "dayofweek", "dayofyear", "extract", "from_days",
	"from_unixtime", "get_format", "hour", "last_day", "localtime", "localtimestamp", "makedate",
	"maketime", "microsecond", "minute", "month", "monthname", "now", "period_add", "period_diff",
	"quarter", "sec_to_time", "second", "str_to_date", "subdate", "subtime", "sysdate", "time",
	ast.TimeLiteral, "time_format", "time_to_sec", "timediff", "timestamp", ast.TimestampLiteral,
	"timestampadd", "timestampdiff", "to_days", "to_seconds", "unix_timestamp", "utc_date",
	"utc_time", "utc_timestamp", "week", "weekday", "weekofyear", "year", "yearweek",
	// text
	"ascii", "bin", "bit_length", "char_func", "char", "char_length", "character_length", "concat",
	"concat_ws", "convert", "elt", "export_set", "field", "find_in_set", "format", "from_base64",
	"hex", "insert_func", "instr", "lcase", "left", "length", "locate", "lower", "lpad", "ltrim",
	"make_set", "mid", "oct", "octet_length", "ord", "position", "quote", "repeat", "replace",
	"reverse", "right", "rpad", "rtrim", "soundex", "space", "strcmp", "substr", "substring",
	"substring_index", "to_base64", "trim", "ucase", "unhex", "upper", "weight_string",
	"regexp_instr", "regexp_replace", "regexp_substr",
	// comparison and control flow
	"coalesce", "greatest", "least", "interval", "isnull", "if", "ifnull", "nullif",
	// about the session and server
	"charset", "coercibility", "collation", "connection_id", "current_user", "database", "schema",
	"session_user", "system_user", "user", "version",
	// other
	"any_value", "default_func", "bit_count", "inet_aton", "inet_ntoa", "inet6_aton", "inet6_ntoa",
	"is_ipv4", "is_ipv4_compat", "is_ipv4_mapped", "is_ipv6", "name_const", "uuid", "uuid_short",
	"values", "grouping",
	"aes_decrypt", "aes_encrypt", "compress", "uncompress", "uncompressed_length", "md5", "sha1",
	"sha", "sha2",
	// JSON
	"json_array", "json_array_append", "json_array_insert", "json_contains", "json_contains_path",
	"json_depth", "json_extract", "json_insert", "json_keys", "json_length", "json_merge",
	"json_merge_patch", "json_merge_preserve", "json_object", "json_overlaps", "json_quote",
	"json_remove", "json_replace", "json_search", "json_set", "json_type", "json_unquote",
	"json_valid", "json_memberof", "json_pretty",
	// geometry
	"point", "linestring", "polygon", "st_area", "st_asbinary", "st_astext", "st_aswkb", "st_aswkt",
	"st_asgeojson", "st_buffer", "st_centroid", "st_contains", "st_distance", "st_envelope",
	"st_geometrytype", "st_geomfromgeojson", "st_geomfromtext", "st_geometryfromtext", "st_intersects",
	"st_isvalid", "st_length", "st_numpoints", "st_pointfromtext", "st_srid", "st_within", "st_x", "st_y",
)

// flavorFunctions are the read-only built-ins only some servers have.
var flavorFunctions = map[Flavor]map[string]bool{
	FlavorMariaDB: set(
		"add_months", "chr", "decode_oracle", "json_compact", "json_detailed", "json_equals",
		"json_exists", "json_loose", "json_normalize", "json_query", "json_value", "lengthb",
		"natural_sort_key", "nvl", "nvl2", "sformat", "to_char", "random_bytes", "decode", "encode",
		"crc32c", "st_distance_sphere",
	),
	FlavorMySQL: set(
		"regexp_like", "is_uuid", "uuid_to_bin", "bin_to_uuid", "json_storage_free",
		"json_storage_size", "json_schema_valid", "json_schema_validation_report", "json_value",
		"random_bytes", "format_bytes", "format_pico_time", "current_role", "st_distance_sphere",
		"st_latitude", "st_longitude", "validate_password_strength",
	),
	FlavorTiDB: set(
		"regexp_like", "is_uuid", "uuid_to_bin", "bin_to_uuid", "uuid_v4", "uuid_v7", "uuid_version",
		"uuid_timestamp", "json_storage_free", "json_storage_size", "json_schema_valid",
		"random_bytes", "format_bytes", "format_nano_time", "current_role", "current_resource_group",
		"tidb_version", "tidb_bounded_staleness", "tidb_parse_tso", "tidb_parse_tso_logical",
		"tidb_current_tso", "tidb_shard", "tidb_row_checksum", "tidb_decode_key", "tidb_decode_plan",
		"tidb_decode_binary_plan", "tidb_encode_sql_digest", "vec_dims", "vec_l1_distance",
		"vec_l2_distance", "vec_negative_inner_product", "vec_cosine_distance", "vec_l2_norm",
		"vec_from_text", "vec_as_text", "mask_full", "mask_partial", "mask_null", "mask_date",
		"sm3", "translate", "validate_password_strength",
	),
}

// spacedNames are parsed by MySQL and MariaDB as built-ins only when "("
// follows the name at once: with a space or comment between, or with the
// name quoted, they call a stored or loadable function of that name. The
// parser here reads both as the built-in, so such calls are refused from
// the text.
var spacedNames = set(
	"adddate", "bit_and", "bit_or", "bit_xor", "cast", "count", "cume_dist", "curdate", "curtime",
	"date_add", "date_sub", "dense_rank", "extract", "first_value", "group_concat", "json_arrayagg",
	"json_objectagg", "lag", "last_value", "lead", "max", "median", "mid", "min", "now", "nth_value",
	"ntile", "percent_rank", "percentile_cont", "percentile_disc", "position", "rank", "row_number",
	"session_user", "st_collect", "std", "stddev", "stddev_pop", "stddev_samp", "subdate", "substr",
	"substring", "sum", "sysdate", "system_user", "trim", "variance", "var_pop", "var_samp",
)

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// allowedFunctions is the allow-list of a flavor: the common built-ins and
// its own; FlavorAny unites every flavor's.
func allowedFunctions(f Flavor) map[string]bool {
	out := make(map[string]bool, len(commonFunctions)+64)
	for n := range commonFunctions {
		out[n] = true
	}
	for fl, names := range flavorFunctions {
		if f == FlavorAny || f == fl {
			for n := range names {
				out[n] = true
			}
		}
	}
	return out
}

// parseFunctionNames reads the configured stored or loadable functions:
// "name" or "database.name", plain identifiers. A denied name is an error:
// no configuration can allow SLEEP or GET_LOCK.
func parseFunctionNames(names []string) (map[string]bool, error) {
	out := map[string]bool{}
	var bad []string
	for _, raw := range names {
		n := strings.ToLower(strings.TrimSpace(raw))
		db, fn, qualified := strings.Cut(n, ".")
		if !qualified {
			db, fn = "", n
		}
		switch {
		case !plainName(fn) || qualified && !plainName(db) || strings.Count(n, ".") > 1:
			bad = append(bad, fmt.Sprintf("%q is not a function name (name or database.name)", raw))
		case deniedFunctions[fn]:
			bad = append(bad, fmt.Sprintf("%q can never be allowed: it waits, locks or reads server files", raw))
		default:
			out[n] = true
		}
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("functions: %s", strings.Join(bad, "; "))
	}
	return out, nil
}

// ValidateFunctions checks configured function names without building a
// guard, for configuration validation.
func ValidateFunctions(names []string) error {
	_, err := parseFunctionNames(names)
	return err
}
