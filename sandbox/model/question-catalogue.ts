// The profiling questions the sandbox knows: ids, kinds, texts per language and answer options with
// the share of the population giving each answer. Backs profile validation, feasibility narrowing,
// respondent attributes in the fielding simulation, and questions-translation.

export type QuestionKind = 'single' | 'multi' | 'range' | 'zip_code' | 'open_ended';

export type LanguageCode = 'en' | 'de' | 'fr' | 'es' | 'it' | 'nl' | 'sv' | 'pl' | 'ja' | 'pt' | 'ko';
export type TranslatedText = Record<LanguageCode, string>;

export interface QuestionOption {
  /** The option identifier used in selection conditions ("1", "2", ...). */
  option: string;
  text: TranslatedText;
  /** Share of the population giving this answer (for multi-select: independently). */
  share: number;
}

export interface RangeBand {
  min: number;
  max: number;
  share: number;
}

export interface Question {
  id: number;
  /** Stable machine name. */
  key: string;
  kind: QuestionKind;
  text: TranslatedText;
  options: readonly QuestionOption[];
  /** For range questions: inclusive bounds and the population share of each band (uniform inside a band). */
  range?: { min: number; max: number; bands: readonly RangeBand[] };
  /** For open_ended questions: the share of the population matching one listed free-text value. */
  sharePerValue?: number;
  /** The locales whose panels are asked this question (canonical, e.g. en_US); absent: every locale. */
  locales?: readonly string[];
}

const t = (en: string, de: string, fr: string, es: string, it: string, nl: string, sv: string, pl: string, ja: string, pt: string, ko: string): TranslatedText =>
  ({ en, de, fr, es, it, nl, sv, pl, ja, pt, ko });

const questions: Question[] = [
  {
    id: 42, key: 'AGE', kind: 'range',
    text: t('What is your age?', 'Wie alt sind Sie?', 'Quel âge avez-vous ?', '¿Cuál es su edad?', 'Quanti anni ha?', 'Wat is uw leeftijd?', 'Hur gammal är du?', 'Ile masz lat?', 'あなたの年齢を教えてください。', 'Qual é a sua idade?', '나이가 어떻게 되십니까?'),
    options: [],
    range: {
      min: 18, max: 99,
      bands: [
        { min: 18, max: 24, share: 0.12 }, { min: 25, max: 34, share: 0.18 }, { min: 35, max: 44, share: 0.18 },
        { min: 45, max: 54, share: 0.17 }, { min: 55, max: 64, share: 0.17 }, { min: 65, max: 99, share: 0.18 },
      ],
    },
  },
  {
    id: 43, key: 'GENDER', kind: 'single',
    text: t('What is your gender?', 'Welches Geschlecht haben Sie?', 'Quel est votre genre ?', '¿Cuál es su género?', 'Qual è il suo genere?', 'Wat is uw geslacht?', 'Vilket kön har du?', 'Jaka jest Twoja płeć?', 'あなたの性別を教えてください。', 'Qual é o seu gênero?', '성별이 무엇입니까?'),
    options: [
      { option: '1', share: 0.49, text: t('Male', 'Männlich', 'Homme', 'Hombre', 'Uomo', 'Man', 'Man', 'Mężczyzna', '男性', 'Masculino', '남성') },
      { option: '2', share: 0.5, text: t('Female', 'Weiblich', 'Femme', 'Mujer', 'Donna', 'Vrouw', 'Kvinna', 'Kobieta', '女性', 'Feminino', '여성') },
      { option: '3', share: 0.01, text: t('Other', 'Divers', 'Autre', 'Otro', 'Altro', 'Anders', 'Annat', 'Inna', 'その他', 'Outro', '기타') },
    ],
  },
  {
    id: 45, key: 'ZIP', kind: 'zip_code',
    text: t('What is your zip / postal code?', 'Wie lautet Ihre Postleitzahl?', 'Quel est votre code postal ?', '¿Cuál es su código postal?', 'Qual è il suo codice postale?', 'Wat is uw postcode?', 'Vilket är ditt postnummer?', 'Jaki jest Twój kod pocztowy?', '郵便番号を教えてください。', 'Qual é o seu CEP?', '우편번호가 무엇입니까?'),
    options: [],
  },
  {
    id: 96, key: 'REGION', kind: 'single', locales: ['en_US'],
    text: t('In which region of the United States do you live?', 'In welcher Region der Vereinigten Staaten leben Sie?', 'Dans quelle région des États-Unis vivez-vous ?', '¿En qué región de Estados Unidos vive?', 'In quale regione degli Stati Uniti vive?', 'In welke regio van de Verenigde Staten woont u?', 'I vilken region i USA bor du?', 'W którym regionie Stanów Zjednoczonych mieszkasz?', 'アメリカのどの地域にお住まいですか?', 'Em qual região dos Estados Unidos você mora?', '미국의 어느 지역에 거주하십니까?'),
    options: [
      { option: '1', share: 0.17, text: t('Northeast', 'Nordosten', 'Nord-Est', 'Noreste', 'Nord-est', 'Noordoosten', 'Nordöst', 'Północny wschód', '北東部', 'Nordeste', '북동부') },
      { option: '2', share: 0.21, text: t('Midwest', 'Mittlerer Westen', 'Midwest', 'Medio Oeste', 'Midwest', 'Middenwesten', 'Mellanvästern', 'Środkowy zachód', '中西部', 'Centro-Oeste', '중서부') },
      { option: '3', share: 0.38, text: t('South', 'Süden', 'Sud', 'Sur', 'Sud', 'Zuiden', 'Söder', 'Południe', '南部', 'Sul', '남부') },
      { option: '4', share: 0.24, text: t('West', 'Westen', 'Ouest', 'Oeste', 'Ovest', 'Westen', 'Väster', 'Zachód', '西部', 'Oeste', '서부') },
    ],
  },
  {
    id: 633, key: 'EDUCATION', kind: 'single',
    text: t('What is the highest level of education you have completed?', 'Was ist Ihr höchster Bildungsabschluss?', 'Quel est votre plus haut niveau de diplôme ?', '¿Cuál es su nivel de estudios más alto?', 'Qual è il suo titolo di studio più alto?', 'Wat is uw hoogst voltooide opleiding?', 'Vilken är din högsta avslutade utbildning?', 'Jakie jest Twoje najwyższe ukończone wykształcenie?', '最終学歴を教えてください。', 'Qual é o seu nível de escolaridade mais alto?', '최종 학력이 무엇입니까?'),
    options: [
      { option: '1', share: 0.38, text: t('Secondary school or less', 'Schulabschluss oder weniger', 'Secondaire ou moins', 'Secundaria o menos', 'Scuola secondaria o meno', 'Middelbare school of lager', 'Gymnasium eller lägre', 'Średnie lub niższe', '高校卒業以下', 'Ensino médio ou menos', '고등학교 이하') },
      { option: '2', share: 0.22, text: t('Vocational training', 'Berufsausbildung', 'Formation professionnelle', 'Formación profesional', 'Formazione professionale', 'Beroepsopleiding', 'Yrkesutbildning', 'Wykształcenie zawodowe', '専門学校', 'Formação técnica', '직업 훈련') },
      { option: '3', share: 0.26, text: t("Bachelor's degree", 'Bachelor', 'Licence', 'Grado universitario', 'Laurea triennale', 'Bachelor', 'Kandidatexamen', 'Licencjat', '学士', 'Graduação', '학사') },
      { option: '4', share: 0.14, text: t('Postgraduate degree', 'Master oder Promotion', 'Master ou doctorat', 'Máster o doctorado', 'Laurea magistrale o dottorato', 'Master of doctoraat', 'Master eller doktorsexamen', 'Magister lub doktorat', '修士・博士', 'Pós-graduação', '석사 이상') },
    ],
  },
  {
    id: 2189, key: 'EMPLOYMENT', kind: 'single',
    text: t('What is your current employment status?', 'Wie ist Ihr aktueller Beschäftigungsstatus?', 'Quelle est votre situation professionnelle ?', '¿Cuál es su situación laboral actual?', 'Qual è la sua attuale situazione lavorativa?', 'Wat is uw huidige arbeidssituatie?', 'Vilken är din nuvarande sysselsättning?', 'Jaki jest Twój obecny status zatrudnienia?', '現在の就業状況を教えてください。', 'Qual é a sua situação profissional atual?', '현재 고용 상태가 어떻게 되십니까?'),
    options: [
      { option: '1', share: 0.45, text: t('Employed full-time', 'Vollzeit beschäftigt', 'Salarié à temps plein', 'Empleado a tiempo completo', 'Occupato a tempo pieno', 'Voltijds in dienst', 'Heltidsanställd', 'Zatrudniony na pełen etat', 'フルタイム勤務', 'Empregado em tempo integral', '정규직') },
      { option: '2', share: 0.13, text: t('Employed part-time', 'Teilzeit beschäftigt', 'Salarié à temps partiel', 'Empleado a tiempo parcial', 'Occupato part-time', 'Deeltijds in dienst', 'Deltidsanställd', 'Zatrudniony na część etatu', 'パートタイム勤務', 'Empregado em meio período', '시간제') },
      { option: '3', share: 0.08, text: t('Self-employed', 'Selbstständig', 'Indépendant', 'Autónomo', 'Lavoratore autonomo', 'Zelfstandige', 'Egenföretagare', 'Samozatrudniony', '自営業', 'Autônomo', '자영업') },
      { option: '4', share: 0.1, text: t('Not employed', 'Nicht erwerbstätig', 'Sans emploi', 'Desempleado', 'Non occupato', 'Niet werkzaam', 'Inte sysselsatt', 'Niezatrudniony', '無職', 'Desempregado', '무직') },
      { option: '5', share: 0.24, text: t('Retired', 'Im Ruhestand', 'Retraité', 'Jubilado', 'In pensione', 'Gepensioneerd', 'Pensionär', 'Emeryt', '退職者', 'Aposentado', '은퇴') },
    ],
  },
  {
    id: 7064, key: 'CHILDREN_IN_HOUSEHOLD', kind: 'single',
    text: t('Do children under 18 live in your household?', 'Leben Kinder unter 18 Jahren in Ihrem Haushalt?', 'Des enfants de moins de 18 ans vivent-ils dans votre foyer ?', '¿Viven menores de 18 años en su hogar?', 'Nel suo nucleo familiare vivono minori di 18 anni?', 'Wonen er kinderen jonger dan 18 in uw huishouden?', 'Bor det barn under 18 år i ditt hushåll?', 'Czy w Twoim gospodarstwie domowym mieszkają dzieci poniżej 18 lat?', '18歳未満のお子様と同居していますか?', 'Há menores de 18 anos morando em sua casa?', '18세 미만 자녀와 함께 살고 있습니까?'),
    options: [
      { option: '1', share: 0.33, text: t('Yes', 'Ja', 'Oui', 'Sí', 'Sì', 'Ja', 'Ja', 'Tak', 'はい', 'Sim', '예') },
      { option: '2', share: 0.67, text: t('No', 'Nein', 'Non', 'No', 'No', 'Nee', 'Nej', 'Nie', 'いいえ', 'Não', '아니요') },
    ],
  },
  {
    id: 61076, key: 'HOUSEHOLD_INCOME', kind: 'single',
    text: t('Which fifth of household incomes in your country is yours in?', 'In welchem Fünftel der Haushaltseinkommen Ihres Landes liegt Ihr Haushalt?', 'Dans quel cinquième des revenus des ménages de votre pays se situe le vôtre ?', '¿En qué quinto de los ingresos de los hogares de su país está el suyo?', 'In quale quinto dei redditi familiari del suo paese si trova il suo?', 'In welk vijfde van de huishoudinkomens van uw land valt het uwe?', 'I vilken femtedel av hushållsinkomsterna i ditt land ligger ditt hushåll?', 'W którym kwintylu dochodów gospodarstw domowych w Twoim kraju jest Twój dochód?', 'あなたの世帯収入は国内の何分位に入りますか?', 'Em qual quinto da renda familiar do seu país está a sua?', '귀하의 가구 소득은 국내 몇 분위에 속합니까?'),
    options: [
      { option: '1', share: 0.2, text: t('Lowest fifth', 'Unterstes Fünftel', 'Premier cinquième', 'Quinto más bajo', 'Quinto più basso', 'Laagste vijfde', 'Lägsta femtedelen', 'Najniższy kwintyl', '第1五分位', 'Quinto mais baixo', '1분위') },
      { option: '2', share: 0.2, text: t('Second fifth', 'Zweites Fünftel', 'Deuxième cinquième', 'Segundo quinto', 'Secondo quinto', 'Tweede vijfde', 'Andra femtedelen', 'Drugi kwintyl', '第2五分位', 'Segundo quinto', '2분위') },
      { option: '3', share: 0.2, text: t('Middle fifth', 'Mittleres Fünftel', 'Cinquième du milieu', 'Quinto medio', 'Quinto centrale', 'Middelste vijfde', 'Mittersta femtedelen', 'Środkowy kwintyl', '第3五分位', 'Quinto do meio', '3분위') },
      { option: '4', share: 0.2, text: t('Fourth fifth', 'Viertes Fünftel', 'Quatrième cinquième', 'Cuarto quinto', 'Quarto quinto', 'Vierde vijfde', 'Fjärde femtedelen', 'Czwarty kwintyl', '第4五分位', 'Quarto quinto', '4분위') },
      { option: '5', share: 0.2, text: t('Highest fifth', 'Oberstes Fünftel', 'Dernier cinquième', 'Quinto más alto', 'Quinto più alto', 'Hoogste vijfde', 'Högsta femtedelen', 'Najwyższy kwintyl', '第5五分位', 'Quinto mais alto', '5분위') },
    ],
  },
  {
    id: 14785, key: 'OWNERSHIP', kind: 'multi',
    text: t('Which of these do you own?', 'Welche dieser Dinge besitzen Sie?', 'Lesquels de ces biens possédez-vous ?', '¿Cuáles de estos tiene?', 'Quali di questi possiede?', 'Welke hiervan bezit u?', 'Vilka av dessa äger du?', 'Które z tych rzeczy posiadasz?', '次のうち所有しているものはどれですか?', 'Quais destes você possui?', '다음 중 소유하고 있는 것은 무엇입니까?'),
    options: [
      { option: '1', share: 0.7, text: t('A car', 'Ein Auto', 'Une voiture', 'Un coche', "Un'auto", 'Een auto', 'En bil', 'Samochód', '自動車', 'Um carro', '자동차') },
      { option: '2', share: 0.5, text: t('A pet', 'Ein Haustier', 'Un animal de compagnie', 'Una mascota', 'Un animale domestico', 'Een huisdier', 'Ett husdjur', 'Zwierzę domowe', 'ペット', 'Um animal de estimação', '반려동물') },
      { option: '3', share: 0.9, text: t('A smartphone', 'Ein Smartphone', 'Un smartphone', 'Un smartphone', 'Uno smartphone', 'Een smartphone', 'En smartphone', 'Smartfon', 'スマートフォン', 'Um smartphone', '스마트폰') },
    ],
  },
  {
    id: 9001, key: 'FAVORITE_BRAND', kind: 'open_ended', sharePerValue: 0.02,
    text: t('Which brand do you buy most often?', 'Welche Marke kaufen Sie am häufigsten?', 'Quelle marque achetez-vous le plus souvent ?', '¿Qué marca compra con más frecuencia?', 'Quale marca acquista più spesso?', 'Welk merk koopt u het vaakst?', 'Vilket märke köper du oftast?', 'Którą markę kupujesz najczęściej?', '最もよく購入するブランドは何ですか?', 'Qual marca você compra com mais frequência?', '가장 자주 구매하는 브랜드는 무엇입니까?'),
    options: [],
  },
  {
    id: 9002, key: 'OCCUPATION', kind: 'open_ended', sharePerValue: 0.01,
    text: t('What is your occupation?', 'Welchen Beruf üben Sie aus?', 'Quelle est votre profession ?', '¿Cuál es su profesión?', 'Qual è la sua professione?', 'Wat is uw beroep?', 'Vad har du för yrke?', 'Jaki jest Twój zawód?', 'ご職業を教えてください。', 'Qual é a sua profissão?', '직업이 무엇입니까?'),
    options: [],
  },
];

const byId = new Map(questions.map((question) => [question.id, question]));

export function listQuestions(): readonly Question[] {
  return questions;
}

export function findQuestion(questionId: number): Question | undefined {
  return byId.get(questionId);
}

export function findOption(question: Question, option: string): QuestionOption | undefined {
  return question.options.find((candidate) => candidate.option === option);
}

/** Whether panels of `locale` (canonical, e.g. en_US) are asked `question`. */
export function isAskedIn(question: Question, locale: string): boolean {
  return question.locales === undefined || question.locales.includes(locale);
}

/** Zip-code and free-text questions: the ones that may be grouped under one open-ended group. */
export function isOpenEndedQuestion(question: Question): boolean {
  return question.kind === 'zip_code' || question.kind === 'open_ended';
}

/** Share of the population answering a range question with a value in [min, max]. */
export function rangeShare(question: Question, min: number, max: number): number {
  if (!question.range) return 0;
  let share = 0;
  for (const band of question.range.bands) {
    const low = Math.max(min, band.min);
    const high = Math.min(max, band.max);
    if (high >= low) share += band.share * ((high - low + 1) / (band.max - band.min + 1));
  }
  return Math.min(1, share);
}

/** The text of a question or option in a language (English is the translation language). */
export function textIn(text: TranslatedText, language: string): string {
  return (text as Record<string, string>)[language] ?? text.en;
}
