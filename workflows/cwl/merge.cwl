#!/usr/bin/env cwl-runner
# probescan merge: the gather step of a scattered count (see
# `probescan merge --help`).
cwlVersion: v1.2
class: CommandLineTool
label: probescan merge
doc: |
  Merge count tables made with one probe set and the same options into the
  table of one run over all their inputs, byte for byte: totals summed,
  --by-file columns joined (a sample in several tables summed), --by-record
  rows concatenated in table order. Tables of different shapes or probe rows
  are refused.
baseCommand: [probescan, merge]
arguments:
  - {prefix: -o, valueFrom: $(inputs.output_name), position: 0}
hints:
  SoftwareRequirement:
    packages:
      probescan: {}
inputs:
  tables:
    type: File[]
    doc: count tables, in merge order
    inputBinding: {position: 100}
  probes:
    type: File?
    doc: the probe file the tables were counted with (checks their rows)
    inputBinding: {prefix: -p, position: 1}
  split_records:
    type: boolean?
    doc: by-record, chunks that cut records in pieces
    inputBinding: {prefix: --split-records, position: 1}
  whole_records:
    type: boolean?
    doc: by-record, each record whole in one chunk
    inputBinding: {prefix: --whole-records, position: 1}
  output_name:
    type: string
    default: merged.tsv
outputs:
  table:
    type: File
    outputBinding: {glob: $(inputs.output_name)}
