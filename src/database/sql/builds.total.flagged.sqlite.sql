select count(*) as "total"
from "build_flags" as "g"
