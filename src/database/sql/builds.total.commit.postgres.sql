select count(*) as "total"
from "build_provenance" as "pv"
where "pv"."commit_sha" >= $1 and "pv"."commit_sha" < $2 and "pv"."commit_sha" like $3
