package warehouse

import "strings"

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
