#!/usr/bin/env cwl-runner
# probescan count: one table of counts for the inputs given (see
# `probescan count --help` and `man probescan` for every option).
cwlVersion: v1.2
class: CommandLineTool
label: probescan count
doc: |
  Count every probe in FASTA/FASTQ (plain, gzip, BGZF), 2bit, SAM, BAM or CRAM
  inputs. The table's shape is the default totals, --by-file (a column per
  input, named after the file) or --by-record; `probescan merge` gathers the
  tables of a scattered run into the table of one run.
baseCommand: [probescan, count]
arguments:
  - {prefix: -o, valueFrom: $(inputs.output_name), position: 0}
  - {valueFrom: --quiet, position: 0}
hints:
  SoftwareRequirement:
    packages:
      probescan: {}
  ResourceRequirement:
    coresMin: $(inputs.threads)
inputs:
  probes:
    type: File
    doc: probes (FASTA, name<TAB>sequence, PROSITE data file or Cas-OFFinder input)
    inputBinding: {prefix: -p, position: 1}
  inputs:
    type: File[]
    doc: sequence files, counted in this order
    inputBinding: {position: 100}
  by_file:
    type: boolean?
    doc: one count column per input file
    inputBinding: {prefix: --by-file, position: 1}
  by_record:
    type: boolean?
    doc: a row per record and probe with a match
    inputBinding: {prefix: --by-record, position: 1}
  mismatches:
    type: int?
    doc: also count sites within this many substitutions (0 to 8)
    inputBinding: {prefix: -m, position: 1}
  strand:
    type:
      - "null"
      - type: enum
        symbols: [both, forward]
    inputBinding: {prefix: --strand, position: 1}
  options:
    type: string[]?
    doc: further probescan count options, e.g. [--pam, NGG]
    inputBinding: {position: 2}
  threads:
    type: int
    default: 1
    inputBinding: {prefix: -t, position: 1}
  output_name:
    type: string
    default: counts.tsv
    doc: the table's file name (ending in .gz or .bgz for BGZF)
outputs:
  table:
    type: File
    outputBinding: {glob: $(inputs.output_name)}
