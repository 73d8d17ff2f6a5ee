package warehouse

import (
	"strings"

	"github.com/clarify-bot/clarify/connectors/sqlguard"
)

// Flavor is the kind of MySQL-protocol server, which decides how the time
// limit is set and how errors read.
type Flavor string

const (
	FlavorMySQL     Flavor = "mysql"
	FlavorMariaDB   Flavor = "mariadb"
	FlavorTiDB      Flavor = "tidb"
	FlavorEmbedded  Flavor = "embedded" // go-mysql-server (also Dolt)
	FlavorStarRocks Flavor = "starrocks"
	FlavorDoris     Flavor = "doris"
)

// pinsSQLMode reports whether the warehouse sets the session's sql_mode on
// this kind of server (StarRocks and Doris have modes of their own).
func (f Flavor) pinsSQLMode() bool {
	switch f {
	case FlavorStarRocks, FlavorDoris:
		return false
	}
	return true
}

// guardFlavor is the guard's list of built-in functions for f: MySQL's for
// the servers that follow it.
func (f Flavor) guardFlavor() sqlguard.Flavor {
	switch f {
	case FlavorMariaDB:
		return sqlguard.FlavorMariaDB
	case FlavorTiDB:
		return sqlguard.FlavorTiDB
	}
	return sqlguard.FlavorMySQL
}

// detectFlavor classifies a server from SELECT VERSION() and @@version_comment.
func detectFlavor(version, comment string) Flavor {
	v := strings.ToLower(version + " " + comment)
	switch {
	case strings.Contains(v, "mariadb"):
		return FlavorMariaDB
	case strings.Contains(v, "tidb"):
		return FlavorTiDB
	case strings.Contains(v, "dolt"):
		return FlavorEmbedded
	case strings.Contains(v, "starrocks"):
		return FlavorStarRocks
	case strings.Contains(v, "doris"):
		return FlavorDoris
	}
	return FlavorMySQL
}
