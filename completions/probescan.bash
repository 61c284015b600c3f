# bash completion for probescan: subcommands, their options and the
# values of the options that take a word; files everywhere else.
_probescan()
{
    local cur prev cmd
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    cmd=${COMP_WORDS[1]}
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "count locate merge summary version --help --version" -- "$cur"))
        return
    fi
    case $cmd:$prev in
        summary:-o|summary:--outdir) COMPREPLY=($(compgen -d -- "$cur")); return ;;
        summary:*) ;;
        *:-a|*:--alphabet) COMPREPLY=($(compgen -W "auto dna protein" -- "$cur")); return ;;
        *:-s|*:--strand) COMPREPLY=($(compgen -W "both forward" -- "$cur")); return ;;
        *:--engine) COMPREPLY=($(compgen -W "auto gpu cpu" -- "$cur")); return ;;
        *:--format) COMPREPLY=($(compgen -W "bed tsv pff gff psa cas-offinder" -- "$cur")); return ;;
        *:--index) COMPREPLY=($(compgen -W "auto automaton kmer-set" -- "$cur")); return ;;
        *:--kernel) COMPREPLY=($(compgen -W "best kmer leaf compact coalesced shared baseline" -- "$cur")); return ;;
        *:-t|*:--threads|*:--gpu|*:-m|*:--mismatches|*:--max-hits|*:--max-x|*:--pam|*:--pam5|*:--dna-bulge|*:--rna-bulge|*:--exact-pieces) return ;;
    esac
    if [[ $cur == -* ]]; then
        case $cmd in
            count) COMPREPLY=($(compgen -W "--probes --alphabet --strand --output --threads --by-file --samples --by-record
                                             --stats --mismatches --engine --index --gpu --kernel --verbose --quiet --help --version
                                             --included --skip-frequent --max-x --no-overlaps --shortest --no-profiles --profiles-only --level --pam --pam5 --dna-bulge --rna-bulge --exact-pieces" -- "$cur")) ;;
            locate) COMPREPLY=($(compgen -W "--probes --alphabet --strand --output --threads --mismatches --format
                                              --max-hits --stats --engine --gpu --verbose --quiet --help --version
                                              --included --skip-frequent --max-x --no-overlaps --shortest --no-profiles --profiles-only --level --pam --pam5 --dna-bulge --rna-bulge --exact-pieces" -- "$cur")) ;;
            merge) COMPREPLY=($(compgen -W "--output --probes --split-records --whole-records --quiet --help --version" -- "$cur")) ;;
            summary) COMPREPLY=($(compgen -W "--outdir --stats --quiet --help --version" -- "$cur")) ;;
        esac
        return
    fi
    COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -F _probescan probescan
